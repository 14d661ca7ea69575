"""`WarmWorkers` against a model, for any sequence of parks, takes, idle expiries and evictions:
a run gets the most recently parked live worker of its own binding or none, never another
binding's worker (even when a new worker reuses the pid of a dead one still idle), and every
worker leaves the idle set exactly once (taken or retired)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.contract import OutcomeStatus
from sandbox.report import WorkerReport
from sandbox.warm import Binding, WarmPolicy, WarmWorkers

BINDINGS = [Binding("a", 64), Binding("b", 64), Binding("a", 128)]
MAX_IDLE = 4


@dataclass(eq=False)
class StubWorker:
    """What `WarmWorkers` reads of a worker handle."""

    pid: int
    binding: Binding
    quiet: bool = True
    runs: int = 0
    cpu_used_s: float = 0.0
    cpu_limit_s: float = 10.0
    base_memory_bytes: int = 0
    holds: set[str] = field(default_factory=set)

    def is_quiet(self) -> bool:
        return self.quiet

    def memory_bytes(self) -> int:
        return 0


OK_REPORT = WorkerReport(OutcomeStatus.OK, cpu_total_s=0.0, cpu_limit_s=10.0)

#: (operation, binding index, dies, reuses a pid): park a new worker (that will have died
#: before its next take; that has the pid of a dead idle worker), take one, expire the oldest
#: idle worker of a binding.
operations = st.lists(
    st.tuples(
        st.sampled_from(["park", "take", "expire"]),
        st.integers(0, len(BINDINGS) - 1),
        st.booleans(),
        st.booleans(),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(operations)
def test_takes_match_a_model_of_the_idle_workers(ops: list[tuple[str, int, bool, bool]]) -> None:
    asyncio.run(_check(ops))


async def _check(ops: list[tuple[str, int, bool, bool]]) -> None:
    retired: list[StubWorker] = []
    warm = WarmWorkers(WarmPolicy(max_idle=MAX_IDLE), retired.append)
    idle: list[StubWorker] = []  # the model: parked order, oldest first
    pids = itertools.count(1)
    for operation, index, dies, reuses in ops:
        binding = BINDINGS[index]
        if operation == "park":
            dead = [w.pid for w in idle if not w.quiet]
            pid = dead[0] if reuses and dead else next(pids)
            worker = StubWorker(pid, binding, quiet=not dies)
            warm.bind(worker, binding)  # type: ignore[arg-type]
            evicted = idle.pop(0) if len(idle) >= MAX_IDLE else None
            assert warm.park(worker, OK_REPORT)  # type: ignore[arg-type]
            idle.append(worker)
            if evicted is not None:
                assert retired[-1] is evicted
        elif operation == "take":
            before = len(retired)
            got = warm.take(binding, 0.1)
            assert got is None or got.binding == binding
            mine = [w for w in idle if w.binding == binding]
            dead_newer = list(itertools.takewhile(lambda w: not w.quiet, reversed(mine)))
            expected = (
                mine[len(mine) - len(dead_newer) - 1] if len(dead_newer) < len(mine) else None
            )
            assert got is expected
            assert retired[before:] == dead_newer
            for worker in [*dead_newer, *([got] if got else [])]:
                idle.remove(worker)
        else:
            mine = [w for w in idle if w.binding == binding]
            if mine:
                warm._expire(mine[0])  # what its idle timer does
                assert retired[-1] is mine[0]
                idle.remove(mine[0])
    gone = set(map(id, retired))
    assert len(gone) == len(retired), "a worker was retired twice"
    assert not gone & set(map(id, idle)), "a retired worker is still idle"
    warm.close()
    assert set(map(id, retired)) == gone | set(map(id, idle))
