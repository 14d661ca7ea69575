"""The engine's CPU per action at a steady rate: `python -m bench.steady_cpu [--rate R]`.

A burst lets the loop batch: one claim, one record, one start mark for many actions. At a
low steady rate every batch is one action, so what a statement costs the loop (SQLAlchemy's
execution, the crossing to the driver's thread) is paid per action. This runs the engine in
this process on a fresh SQLite database, loads one-offs due evenly at `rate` per second over
`tenants` tenants, and reports, from their first due instant until every one has finished:
the CPU of this process's main thread (the engine's event loop) per action, and the
statements per action by their first words. Statements are counted as SQLite runs them (its
trace callback, on each connection's own thread): those run past SQLAlchemy's execution
(`tenants.lean_statements`) and each transaction's BEGIN and COMMIT included, and the count
costs the loop nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import uvloop
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import await_

from api.engine_settings import engine_config
from api.settings import Settings
from bench import ours
from bench.workload import TRIVIAL_PYTHON, Workload, burst, steady
from engine.domain.records import ActionStatus
from engine.service import EngineService
from engine.store.actions import insert_actions
from engine.store.tables import actions
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants.secret_box import KeyRing, SecretBox, new_key

#: Seconds between loading the actions and the first one's due instant.
LEAD_S = 1.0


async def measure(rate: float, count: int, tenants: int) -> tuple[float, Counter[str]]:
    """(loop CPU in ms per action, statements run while they drained by their first words)."""
    with tempfile.TemporaryDirectory(prefix="cadenza-steady-") as directory:
        url = f"sqlite+aiosqlite:///{directory}/steady.db"
        db, tenant_ids = await ours.prepare(url, tenants, "steady")
        statements: Counter[str] = Counter()
        counting = False

        def count_statement(sql: str) -> None:
            if counting:
                statements[_shape(sql)] += 1

        def trace(dbapi_connection: Any, _record: Any) -> None:
            # on the connection's thread: aiosqlite's sqlite3 connection is used only there
            connection = dbapi_connection._connection
            await_(connection._execute(connection._conn.set_trace_callback, count_statement))

        await db.dispose()  # the connections made from here on are traced
        event.listen(db.sync_engine, "connect", trace)
        settings = Settings(database_url=url, node_name="steady")
        box = SecretBox(KeyRing((new_key(),)))
        sandbox_config = SandboxConfig(max_workers=8, runtimes=(RuntimeName.PYTHON,))
        try:
            async with Sandbox(sandbox_config) as sandbox:
                service = EngineService(db, sandbox, engine_config(settings), secrets=box)
                await service.start()
                try:
                    # one action per tenant first: warm workers, as a deployment has them
                    await _load(db, tenant_ids, burst("python", TRIVIAL_PYTHON, tenants), 0.2)
                    await _until_finished(db)
                    workload = steady("python", TRIVIAL_PYTHON, rate, count / rate)
                    first_due = await _load(db, tenant_ids, workload, LEAD_S)
                    await asyncio.sleep((first_due - datetime.now(UTC)).total_seconds())
                    counting, started = True, time.thread_time()
                    await _until_finished(db)
                    cpu_s, counting = time.thread_time() - started, False
                    await _all_succeeded(db, count + tenants)
                finally:
                    await service.stop()
        finally:
            await db.dispose()
    return cpu_s * 1000 / count, statements


def _shape(sql: str) -> str:
    """A traced statement's first words, its values (SQLite traces them bound) as `?`."""
    unbound = re.sub(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b", "?", sql)
    return re.sub(r"\s+", " ", unbound)[:60]


async def _load(
    db: AsyncEngine, tenant_ids: list[str], workload: Workload, lead_s: float
) -> datetime:
    """Insert the workload's actions, the first due `lead_s` from now; that instant."""
    first_due = datetime.now(UTC) + timedelta(seconds=lead_s)
    async with db.begin() as conn:
        await insert_actions(conn, ours.action_rows(tenant_ids, workload, first_due))
    return first_due


async def _all_succeeded(db: AsyncEngine, expected: int) -> None:
    query = select(func.count()).where(actions.c.status == ActionStatus.SUCCEEDED)
    async with db.connect() as conn:
        succeeded = (await conn.execute(query)).scalar()
    if succeeded != expected:
        raise SystemExit(f"{succeeded} of {expected} actions succeeded: the figure means nothing")


async def _until_finished(db: AsyncEngine) -> None:
    unfinished = select(func.count()).where(
        actions.c.status.in_([ActionStatus.PENDING, ActionStatus.RUNNING])
    )
    while True:
        async with db.connect() as conn:
            if not (await conn.execute(unfinished)).scalar():
                return
        await asyncio.sleep(0.5)  # its own statements are counted too: a few per second


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.steady_cpu", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rate", type=float, default=70.0, help="actions due per second")
    parser.add_argument("--actions", type=int, default=700)
    parser.add_argument("--tenants", type=int, default=10)
    args = parser.parse_args(argv)
    cpu_ms, statements = uvloop.run(measure(args.rate, args.actions, args.tenants))
    print(f"{args.actions} actions due at {args.rate:g}/s: loop CPU {cpu_ms:.3f} ms per action")
    for text, count in statements.most_common(16):
        print(f"  {count / args.actions:6.2f} per action  {text}")


if __name__ == "__main__":
    main()
