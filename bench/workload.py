"""What a scenario asks both systems to do: when each action is due, and which trivial script.

The same offsets drive Cadenza (one action per offset) and the peer (one job per offset), so
both face exactly the same load.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: A trivial script per runtime: the smallest thing that is a valid, successful run.
TRIVIAL_PYTHON = "def main(ctx):\n    return None\n"
TRIVIAL_WAT = '(module (memory (export "memory") 1) (func (export "main")))\n'
#: Seconds between loading a workload and its first due instant, per 1 000 actions loaded.
LOAD_S_PER_1000 = 0.3
#: Fixed part of the lead: a worker notices actions another process wrote within ~1 s.
BASE_LEAD_S = 2.0
QUICK_LEAD_S = 1.5


def trivial_code(runtime: str) -> str:
    """The trivial script for `runtime`: python and micropython share one, wasm is WAT text."""
    return TRIVIAL_WAT if runtime == "wasm" else TRIVIAL_PYTHON


@dataclass(frozen=True)
class Workload:
    """Actions of one runtime due at `lead_s + offset` after loading."""

    runtime: str
    code: str
    offsets_s: tuple[float, ...]
    lead_s: float

    @property
    def size(self) -> int:
        return len(self.offsets_s)

    @property
    def span_s(self) -> float:
        return max(self.offsets_s, default=0.0)

    def one(self) -> Workload:
        return replace(self, offsets_s=(0.0,), lead_s=0.0)


def lead_s(size: int, base_lead_s: float) -> float:
    """Seconds between loading `size` actions and their first due instant."""
    return base_lead_s + LOAD_S_PER_1000 * size / 1000


def burst(runtime: str, code: str, size: int, base_lead_s: float = BASE_LEAD_S) -> Workload:
    """`size` actions all due at the same instant."""
    return Workload(runtime, code, (0.0,) * size, lead_s(size, base_lead_s))


def steady(
    runtime: str, code: str, rate_per_s: float, duration_s: float, base_lead_s: float = BASE_LEAD_S
) -> Workload:
    """Actions due evenly at `rate_per_s` for `duration_s`."""
    count = round(rate_per_s * duration_s)
    offsets = tuple(i / rate_per_s for i in range(count))
    return Workload(runtime, code, offsets, lead_s(count, base_lead_s))
