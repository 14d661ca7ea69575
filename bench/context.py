"""What every scenario is given: the mode, fresh databases, a scratch directory, a logger."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from bench.databases import Databases
from bench.workload import BASE_LEAD_S, QUICK_LEAD_S

T = TypeVar("T")


class Mode(StrEnum):
    QUICK = "quick"
    """Small sizes, under two minutes for the whole suite: proves everything works."""
    FULL = "full"
    """The sizes the report quotes, under fifteen minutes on two cores."""


@dataclass
class Context:
    mode: Mode
    databases: Databases
    work_dir: Path
    log: Callable[[str], None]

    def pick(self, quick: T, full: T) -> T:
        """The quick or the full value of a parameter."""
        return quick if self.mode is Mode.QUICK else full

    @property
    def repeats(self) -> int:
        """Repeats of every comparison with the peer (ratios are taken pair by pair)."""
        return 3

    @property
    def light_repeats(self) -> int:
        """Repeats of the scenarios without a peer: one is enough to prove them in quick mode."""
        return self.pick(1, 3)

    @property
    def calibrates(self) -> bool:
        """Whether sizes follow a calibration burst (full mode) or stay as set (quick mode)."""
        return self.mode is Mode.FULL

    @property
    def base_lead_s(self) -> float:
        """Seconds between loading a workload and its first due instant (plus load time)."""
        return self.pick(QUICK_LEAD_S, BASE_LEAD_S)
