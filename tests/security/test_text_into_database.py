"""Arbitrary code points, lone surrogates and NUL included, written by a script of every runtime
into every field it can fill, go through the real engine into the real database (SQLite and
PostgreSQL): every run is recorded with its effects, and another tenant's action due in the
same batch succeeds with its own.

Finding 1 of issue 18: one lone surrogate in one run's output made the completion batch fail,
and with it other tenants' runs. Text is now storable by construction, cleaned in the worker
and again where outcomes and kv writes enter the engine.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.loop_thread import LoopThread
from support.waiting import eventually

from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import events, runs
from sandbox import Sandbox, SandboxConfig, clean_text
from tenants.db import create_engine
from tenants.registry import create_tenant
from tenants.tables import kv

TEXT = st.text(st.characters(exclude_categories=()), min_size=1, max_size=24)


def python_script(text: str, fails: bool) -> str:
    literal = ascii(text)  # escapes only: the script itself is plain ASCII
    ending = f"raise ValueError({literal})" if fails else f"return {{{literal}: [{literal}]}}"
    return (
        "def main(ctx):\n"
        f"    print({literal})\n"
        f"    ctx.log({literal})\n"
        f"    ctx.emit('e', {{{literal}: {literal}}})\n"
        f"    ctx.kv.set('k', [{literal}])\n"
        f"    {ending}\n"
    )


def wat_bytes(data: bytes) -> str:
    return "".join(f"\\{byte:02x}" for byte in data)


def wasm_module(text: str) -> str:
    """Prints and logs the text's bytes (surrogates as their three bytes, so not UTF-8) and
    returns it as JSON (surrogates as escapes)."""
    raw = text.encode("utf-8", "surrogatepass")
    result = json.dumps([text]).encode()
    imports = "".join(
        f'(import "cadenza" "{name}" (func ${name} (param i32 i32) (result i32)))'
        for name in ("print", "log", "result")
    )
    calls = "".join(
        f"(drop (call ${name} (i32.const {at}) (i32.const {size})))"
        for name, at, size in (
            ("print", 0, len(raw)),
            ("log", 0, len(raw)),
            ("result", 4096, len(result)),
        )
    )
    return (
        f'(module {imports} (memory (export "memory") 1) (data (i32.const 0) "{wat_bytes(raw)}")'
        f' (data (i32.const 4096) "{wat_bytes(result)}") (func (export "main") {calls}))'
    )


@dataclass
class Engine:
    loop: LoopThread
    db: AsyncEngine
    service: EngineService
    hostile: str
    victim: str


@pytest.fixture
def engine(database_url: str, wasm_cache: Path) -> Iterator[Engine]:
    loop = LoopThread()
    db = create_engine(database_url)
    sandbox = Sandbox(SandboxConfig(max_workers=2, cache_dir=wasm_cache))

    async def start() -> Engine:
        await sandbox.__aenter__()
        config = EngineConfig(node_name="text-node", max_concurrency=4, wake_cap_s=0.2)
        service = EngineService(db, sandbox, config)
        async with db.begin() as conn:
            hostile, _ = await create_tenant(conn, "writes-anything")
            victim, _ = await create_tenant(conn, "innocent")
        await service.start()
        return Engine(loop, db, service, hostile.id, victim.id)

    async def stop(running: Engine) -> None:
        await running.service.stop()
        await sandbox.__aexit__(None, None, None)
        await db.dispose()

    running = loop.run(start())
    try:
        yield running
    finally:
        loop.run(stop(running))
        loop.close()


VICTIM = "def main(ctx):\n    ctx.kv.set('n', ctx.kv.get('n', 0) + 1)\n    return 'fine'\n"
EXAMPLES = itertools.count(1)


async def submit(engine: Engine, text: str, example: int) -> list[int]:
    """The hostile tenant's four scripts and the victim's one, all due now."""
    now, service = datetime.now(UTC), engine.service
    scripts = [
        ("python", python_script(text, fails=False)),
        ("python", python_script(text, fails=True)),
        ("micropython", python_script(text, fails=False)),
        ("wasm", wasm_module(text)),
    ]
    ids = []
    for index, (runtime, code) in enumerate(scripts):
        key = f"{example}-{index}"
        action = await service.submit_action(
            engine.hostile, run_at=now, key=key, code=code, runtime=runtime
        )
        ids.append(action.action.id)
    victim = await service.submit_action(engine.victim, run_at=now, key=f"v{example}", code=VICTIM)
    return [*ids, victim.action.id]


async def recorded(engine: Engine, ids: list[int]) -> dict[int, str]:
    """action id -> outcome of its first recorded run, once each has one."""

    async def outcomes() -> dict[int, str] | None:
        query = select(runs.c.action_id, runs.c.outcome).where(runs.c.action_id.in_(ids))
        async with engine.db.connect() as conn:
            found = dict((await conn.execute(query)).all())
        return found if len(found) == len(ids) else None

    return await eventually(outcomes, timeout_s=60)


async def effects(engine: Engine) -> tuple[dict[str, object], list[object]]:
    """(kv of both tenants by key, the hostile tenant's event payloads)."""
    async with engine.db.connect() as conn:
        values = dict((await conn.execute(select(kv.c.key, kv.c.value))).all())
        payloads = [
            p
            for (p,) in await conn.execute(
                select(events.c.payload).where(events.c.tenant_id == engine.hostile)
            )
        ]
    return values, payloads


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXT)
def test_any_text_from_any_runtime_is_recorded_with_its_effects(engine: Engine, text: str) -> None:
    example = next(EXAMPLES)
    ids = engine.loop.run(submit(engine, text, example))
    outcomes = engine.loop.run(recorded(engine, ids))
    assert [outcomes[i] for i in ids] == ["ok", "error", "ok", "ok", "ok"]
    values, payloads = engine.loop.run(effects(engine))
    clean = clean_text(text)
    assert values["k"] == [clean]
    assert {clean: clean} in payloads
    assert values["n"] >= 1  # the victim's run, in the same batches, took effect
