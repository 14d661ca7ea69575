"""Side by side: the same workloads through Cadenza and the peer, interleaved repeat by repeat.

One warm `cadenza worker` serves a database for the whole comparison. It first drains a
calibration burst per runtime; the scenario sizes its cases from those rates (`bench.budget`:
so a slow build still finishes in the time the mode promises, and the report says which sizes
ran). Then, for each repeat, every case runs on Cadenza (each of its runtimes) and on each peer
configuration (a fresh job store each time), so the pairs behind every ratio were measured
moments apart under the same machine load.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from bench import ours, peer
from bench.context import Context
from bench.cpu import CpuUse
from bench.processes import Child
from bench.results import Recorder
from bench.workload import Workload, burst, trivial_code

#: record(recorder, case, system, lateness_ms, drain_s, size)
RecordFn = Callable[[Recorder, str, str, list[float], float, int], None]


@dataclass(frozen=True)
class Case:
    """One load shape: its label in the report, its due offsets and the runtimes that run it."""

    label: str
    offsets_s: tuple[float, ...]
    lead_s: float
    runtimes: tuple[str, ...]

    def workload(self, runtime: str, code: str) -> Workload:
        return Workload(runtime, code, self.offsets_s, self.lead_s)


#: Builds the cases from the calibrated rates (actions/s per runtime; infinite in quick mode).
CaseFactory = Callable[[Mapping[str, float]], Sequence[Case]]
#: Actions in each runtime's calibration burst: enough that ramp-up and polling do not dominate.
CALIBRATION_SIZE = 300


@dataclass
class _Node:
    """A prepared database with one warm worker on it."""

    db: AsyncEngine
    worker: Child
    tenant_ids: list[str]
    ready: dict[str, str]


async def _warm(node: _Node, runtimes: Sequence[str], notes: list[str]) -> None:
    """Keep the runtimes whose trivial script ran once; note the others."""
    for runtime in runtimes:
        code = trivial_code(runtime)
        try:
            await ours.warm_up(node.db, [node.worker], node.tenant_ids, burst(runtime, code, 1, 0))
        except ours.WorkerFailed as exc:
            notes.append(f"{runtime}: left out, its warm-up failed: {exc}")
            continue
        node.ready[runtime] = code


async def _started_node(
    ctx: Context,
    stack: contextlib.AsyncExitStack,
    url: str,
    database: str,
    db: AsyncEngine,
    tenant_ids: list[str],
    runtimes: Sequence[str],
    notes: list[str],
) -> _Node:
    """A worker with its runtimes warm; one that dies at start is started once more (noted)."""
    for attempt in (1, 2):
        log_path = ctx.work_dir / f"worker-{database}-{attempt}.log"
        worker = await stack.enter_async_context(ours.running_worker(url, log_path))
        node = _Node(db, worker, tenant_ids, {})
        await _warm(node, runtimes, notes)
        if node.ready or worker.exited() is None:
            break
        notes.append(f"{database}: the worker died during its warm-up; started it once more")
    return node


async def _calibrate(
    ctx: Context, node: _Node, database: str, notes: list[str]
) -> dict[str, float]:
    """Actions/s of each ready runtime on a calibration burst (infinite in quick mode)."""
    if not ctx.calibrates:
        return dict.fromkeys(node.ready, math.inf)
    rates = {}
    for runtime, code in node.ready.items():
        workload = burst(runtime, code, CALIBRATION_SIZE, ctx.base_lead_s)
        done = await ours.drain(node.db, [node.worker], node.tenant_ids, workload)
        rates[runtime] = workload.size / done.drain_s
    shown = ", ".join(f"{runtime} {rate:.0f}/s" for runtime, rate in rates.items())
    notes.append(f"{database}: calibration burst ({CALIBRATION_SIZE} actions): {shown}")
    return rates


async def _run_ours(ctx: Context, node: _Node, case: Case, rec: Recorder, record: RecordFn) -> str:
    notes = []
    for runtime in case.runtimes:
        code = node.ready[runtime]
        done = await ours.drain(
            node.db, [node.worker], node.tenant_ids, case.workload(runtime, code)
        )
        if set(done.outcomes) != {"succeeded"}:
            notes.append(f"{case.label} {runtime}: outcomes {done.outcomes}")
        size = len(case.offsets_s)
        system = f"{peer.OURS} ({runtime})"
        record(rec, case.label, system, done.lateness_ms, done.drain_s, size)
        record_cpu(rec, case.label, system, done.cpu, size)
    return "; ".join(notes)


def record_cpu(rec: Recorder, case: str, system: str, cpu: CpuUse, actions: int) -> None:
    """CPU per action of one drain, where it went (`bench.cpu`): the peer has no such split."""
    for part, seconds in cpu.parts():
        rec.add(case, system, f"{part} CPU per action", "ms", seconds * 1000 / actions)


async def _run_peer(
    ctx: Context,
    database: str,
    peers: Sequence[peer.Peer],
    case: Case,
    rec: Recorder,
    record: RecordFn,
) -> None:
    for configuration in peers:
        url = ctx.databases.url(database)
        assert url is not None
        lateness_ms = await asyncio.to_thread(
            peer.fire_all, url, configuration, case.offsets_s, case.lead_s
        )
        size = len(case.offsets_s)
        record(rec, case.label, configuration, lateness_ms, max(lateness_ms) / 1000, size)


async def side_by_side(
    ctx: Context,
    database: str,
    make_cases: CaseFactory,
    runtimes: Sequence[str],
    recorder: Recorder,
    record: RecordFn,
    tenant_count: int,
    peers: Sequence[peer.Peer] | None = None,
) -> list[str]:
    """Measure every case on `database` ("sqlite" or "postgresql"); return notes on gaps.

    The peer runs in every configuration `peer.peers_for(database)` unless `peers` is given.
    """
    notes: list[str] = []
    url = ctx.databases.url(database)
    if url is None:
        return [f"{database}: {ctx.databases.postgres_missing}"]
    configurations = peer.peers_for(database) if peers is None else peers
    db, tenant_ids = await ours.prepare(url, tenant_count, "bench")
    try:
        async with contextlib.AsyncExitStack() as stack:
            node = await _started_node(ctx, stack, url, database, db, tenant_ids, runtimes, notes)
            if not node.ready:
                return notes
            cases = make_cases(await _calibrate(ctx, node, database, notes))
            for repeat in range(ctx.repeats):
                for case in cases:
                    ctx.log(f"  {database} {case.label}, repeat {repeat + 1}")
                    if problem := await _run_ours(ctx, node, case, recorder, record):
                        notes.append(problem)
                    await _run_peer(ctx, database, configurations, case, recorder, record)
    finally:
        await db.dispose()
    return notes
