"""Where a burst's CPU goes in the engine: `python -m bench.loop_split [--answered-at-once]`.

Drains one burst of one-off actions through a real `cadenza worker` on a fresh SQLite file
(warm, as `cadenza bench throughput` does) and prints actions/s and, per action, the CPU of the
worker's event loop, of its other threads and of its sandbox processes (`bench.cpu`). With
`--answered-at-once` the worker's runtimes answer every run at once with an ok outcome, without
a sandbox worker (`bench.answered_at_once`): the difference between the two runs is what the
event loop spends on the sandbox conversation, and the rest what it spends on everything else.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import ours
from bench.processes import CADENZA
from bench.workload import burst, trivial_code


async def measure(runtime: str, size: int, tenants: int, command: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="cadenza-loop-split-") as work:
        url = f"sqlite+aiosqlite:///{work}/burst.db"
        db, tenant_ids = await ours.prepare(url, tenants, "split")
        workload = burst(runtime, trivial_code(runtime), size)
        try:
            log_path = Path(work) / "worker.log"
            async with ours.running_worker(url, log_path, command=command) as worker:
                await ours.warm_up(db, [worker], tenant_ids, workload.one())
                done = await ours.drain(db, [worker], tenant_ids, workload)
        finally:
            await db.dispose()
    cpu = done.cpu
    print(
        f"{runtime}, {size} due at once over {tenants} tenants: {size / done.drain_s:.0f} actions/s"
    )
    for part, seconds in cpu.parts():
        print(f"  {part:<14} {seconds * 1000 / size:6.3f} ms of CPU per action")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.loop_split", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--runtime", default="python", choices=["python", "micropython", "wasm"])
    parser.add_argument("--size", type=int, default=5000, help="actions in the burst")
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument(
        "--answered-at-once", action="store_true", help="no sandbox: every run ok at once"
    )
    args = parser.parse_args(argv)
    command = (
        (sys.executable, "-m", "bench.answered_at_once") if args.answered_at_once else (CADENZA,)
    )
    asyncio.run(measure(args.runtime, args.size, args.tenants, command))


if __name__ == "__main__":
    main()
