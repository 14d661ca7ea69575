"""The results of one suite run: figures (medians over repeats), paired ratios, plot samples.

A scenario records every repeat into a `Recorder`; the recorder turns them into `Figure`s (the
median and every repeat) and `Ratio`s (ours vs the peer, repeat by repeat, so each pair was
measured back to back in the same run). Everything serialises to plain JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from bench.stats import downsample, median, paired_ratios

SAMPLE_LIMIT = 2000


class Status(StrEnum):
    OK = "ok"
    """Every part of the scenario was measured."""
    PARTIAL = "partial"
    """Some parts were measured; `notes` says which are missing and why."""
    SKIPPED = "skipped"
    """Nothing could be measured here (e.g. no PostgreSQL binaries); `notes` says why."""
    FAILED = "failed"
    """The scenario raised; `notes` holds the error."""


@dataclass(frozen=True)
class Figure:
    """One measured quantity for one system in one case, over every repeat."""

    case: str
    system: str
    metric: str
    unit: str
    repeats: list[float]
    median: float


@dataclass(frozen=True)
class Ratio:
    """ours / peer for one metric and case, computed pair by pair."""

    case: str
    metric: str
    ours: str
    peer: str
    pairs: list[float]
    median: float


@dataclass(frozen=True)
class Samples:
    """Raw values of one representative repeat, for the plots (downsampled)."""

    case: str
    system: str
    kind: str
    values: list[float]


@dataclass
class Recorder:
    """Collects repeats as a scenario measures them."""

    _values: dict[tuple[str, str, str, str], list[float]] = field(default_factory=dict)
    samples: list[Samples] = field(default_factory=list)

    def add(self, case: str, system: str, metric: str, unit: str, value: float) -> None:
        self._values.setdefault((case, system, metric, unit), []).append(float(value))

    def add_samples(self, case: str, system: str, kind: str, values: list[float]) -> None:
        """Keep the samples of one repeat per (case, system, kind): the last one given."""
        self.samples = [
            s for s in self.samples if (s.case, s.system, s.kind) != (case, system, kind)
        ]
        self.samples.append(Samples(case, system, kind, downsample(values, SAMPLE_LIMIT)))

    def figures(self) -> list[Figure]:
        return [
            Figure(case, system, metric, unit, values, median(values))
            for (case, system, metric, unit), values in self._values.items()
        ]

    def repeats(self, case: str, system: str, metric: str) -> list[float]:
        for (c, s, m, _unit), values in self._values.items():
            if (c, s, m) == (case, system, metric):
                return values
        return []

    def ratios(self, ours: str, peer: str) -> list[Ratio]:
        """ours/peer for every (case, metric) both systems measured the same number of times."""
        found = []
        for case, system, metric, _unit in self._values:
            if system != ours:
                continue
            mine, theirs = self.repeats(case, ours, metric), self.repeats(case, peer, metric)
            if theirs and len(mine) == len(theirs):
                pairs = paired_ratios(mine, theirs)
                found.append(Ratio(case, metric, ours, peer, pairs, median(pairs)))
        return found


@dataclass
class ScenarioResult:
    """What one scenario hands to the report."""

    name: str
    status: Status
    params: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    ratios: list[Ratio] = field(default_factory=list)
    samples: list[Samples] = field(default_factory=list)
    duration_s: float = 0.0
    #: How fast the machine was when the scenario ran (`bench.machine`): speed probe, steal.
    machine: dict[str, float | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
