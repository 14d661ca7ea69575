"""Side by side: the same workloads through Cadenza and the peer, interleaved repeat by repeat.

For each repeat, every case runs on Cadenza (each available runtime, one warm worker per
database) and then on each peer configuration (a fresh job store each time), so the pairs
behind every ratio were measured minutes apart under the same machine load.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from bench import ours, peer
from bench.context import Context
from bench.results import Recorder
from bench.workload import Workload, trivial_code

#: record(recorder, case, system, lateness_ms, drain_s, size)
RecordFn = Callable[[Recorder, str, str, list[float], float, int], None]


@dataclass(frozen=True)
class Case:
    """One load shape: its label in the report and its due offsets."""

    label: str
    offsets_s: tuple[float, ...]
    lead_s: float

    def workload(self, runtime: str, code: str) -> Workload:
        return Workload(runtime, code, self.offsets_s, self.lead_s)


async def _warm_runtimes(
    db: AsyncEngine,
    worker: subprocess.Popen[bytes],
    tenant_id: str,
    runtimes: Sequence[str],
    notes: list[str],
) -> dict[str, str]:
    """The runtimes whose trivial script ran once; the others are noted and left out."""
    ready: dict[str, str] = {}
    for runtime in runtimes:
        code = trivial_code(runtime)
        try:
            await ours.warm_up(db, [worker], tenant_id, Workload(runtime, code, (0.0,), 0.0))
        except ours.WorkerFailed as exc:
            notes.append(f"{runtime}: left out, its warm-up failed: {exc}")
            continue
        ready[runtime] = code
    return ready


async def side_by_side(
    ctx: Context,
    database: str,
    cases: Sequence[Case],
    runtimes: Sequence[str],
    recorder: Recorder,
    record: RecordFn,
    tenant_count: int,
) -> list[str]:
    """Measure every case on `database` ("sqlite" or "postgresql"); return notes on gaps."""
    notes: list[str] = []
    url = ctx.databases.url(database)
    if url is None:
        return [f"{database}: {ctx.databases.postgres_missing}"]
    db, tenant_ids = await ours.prepare(url, tenant_count, "bench")
    try:
        async with ours.running_worker(url, ctx.work_dir / f"worker-{database}.log") as worker:
            ready = await _warm_runtimes(db, worker, tenant_ids[0], runtimes, notes)
            for repeat in range(ctx.repeats):
                for case in cases:
                    for runtime, code in ready.items():
                        ctx.log(f"  {database} {case.label} cadenza/{runtime} repeat {repeat + 1}")
                        done = await ours.drain(
                            db, [worker], tenant_ids, case.workload(runtime, code)
                        )
                        if set(done.outcomes) != {"succeeded"}:
                            notes.append(f"{case.label} {runtime}: outcomes {done.outcomes}")
                        system = f"{peer.OURS} ({runtime})"
                        record(
                            recorder,
                            case.label,
                            system,
                            done.lateness_ms,
                            done.drain_s,
                            len(case.offsets_s),
                        )
                    for configuration in peer.peers_for(url):
                        ctx.log(f"  {database} {case.label} {configuration} repeat {repeat + 1}")
                        peer_url = ctx.databases.url(database)
                        assert peer_url is not None
                        lateness_ms = await asyncio.to_thread(
                            peer.fire_all, peer_url, configuration, case.offsets_s, case.lead_s
                        )
                        drain_s = max(lateness_ms) / 1000
                        record(
                            recorder,
                            case.label,
                            configuration,
                            lateness_ms,
                            drain_s,
                            len(case.offsets_s),
                        )
    finally:
        await db.dispose()
    return notes
