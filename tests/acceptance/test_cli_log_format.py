"""`cadenza worker` and `cadenza serve` log as text or JSON: each record one line carrying the
tenant, rule, action, run and event ids of what it concerns."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update
from support.ports import free_port
from support.processes import CADENZA, cli_env, create_tenant, run_cli

from engine.store.tables import events
from tenants.db import create_engine
from tenants.tables import tenants

DELIVERY_FAILED = "webhook delivery of event"
IDS = {"tenant_id", "rule_id", "action_id", "run_id", "event_id"}


async def _seed_refused_delivery(database_url: str, tenant_id: str) -> int:
    """An event due for delivery to a loopback URL, which the engine refuses and logs."""
    db = create_engine(database_url)
    try:
        async with db.begin() as conn:
            await conn.execute(
                update(tenants)
                .where(tenants.c.id == tenant_id)
                .values(webhook_url=f"http://127.0.0.1:{free_port()}/hook")
            )
            now = datetime.now(UTC)
            result = await conn.execute(
                events.insert().values(
                    tenant_id=tenant_id, type="invoice.due", payload={}, source="script",
                    rule_id="r-1", action_id=7, run_id=9, created_at=now,
                    delivery_status="pending", next_attempt_at=now,
                )
            )  # fmt: skip
            return int(result.inserted_primary_key[0])
    finally:
        await db.dispose()


def _log_of(args: list[str], env: dict[str, str], log: Path) -> list[str]:
    """Start the command with stderr to `log`; stop it once the delivery failure is logged."""
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [CADENZA, *args], stdout=subprocess.DEVNULL, stderr=sink, env=cli_env(**env)
        )
    try:
        deadline = time.monotonic() + 60
        while DELIVERY_FAILED not in log.read_text():
            assert process.poll() is None, f"exited early:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no delivery failure logged:\n{log.read_text()}"
            time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return log.read_text().splitlines()


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[str, str, int]:
    """A migrated SQLite database with one tenant and one event its webhook cannot take."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    assert run_cli("db", "upgrade", "--db", url).returncode == 0
    tenant_id = create_tenant(url, "acme")["tenant_id"]
    return url, tenant_id, asyncio.run(_seed_refused_delivery(url, tenant_id))


@pytest.mark.parametrize(
    ("args", "env"),
    [
        pytest.param(["worker", "--log-format", "json"], {}, id="worker-flag"),
        pytest.param(["worker"], {"CADENZA_LOG_FORMAT": "json"}, id="worker-env"),
        pytest.param(["serve", "--no-demo", "--log-format", "json"], {}, id="serve-flag"),
    ],
)
def test_json_logs_are_objects_with_the_ids(
    seeded: tuple[str, str, int], args: list[str], env: dict[str, str], tmp_path: Path
) -> None:
    url, tenant_id, event_id = seeded
    if args[0] == "serve":
        args = [*args, "--port", str(free_port())]
    lines = _log_of([*args, "--db", url], env, tmp_path / "stderr.log")
    records = [json.loads(line) for line in lines]  # every line of stderr is one JSON object
    failed = next(r for r in records if DELIVERY_FAILED in r["message"])
    assert {"time", "level", "logger", "message"} <= set(failed)
    assert failed["level"] == "warning" and failed["logger"] == "cadenza.engine"
    assert {k: failed[k] for k in IDS} == {
        "tenant_id": tenant_id, "rule_id": "r-1", "action_id": 7, "run_id": 9,
        "event_id": event_id,
    }  # fmt: skip
    if args[0] == "serve":
        started = next(r for r in records if "Application startup complete" in r["message"])
        assert started["logger"] == "uvicorn.error"


def test_text_logs_end_with_the_ids(seeded: tuple[str, str, int], tmp_path: Path) -> None:
    url, tenant_id, event_id = seeded
    lines = _log_of(["worker", "--db", url], {}, tmp_path / "stderr.log")
    failed = next(line for line in lines if DELIVERY_FAILED in line)
    assert " WARNING cadenza.engine: " in failed
    assert failed.endswith(
        f" tenant_id={tenant_id} rule_id=r-1 action_id=7 run_id=9 event_id={event_id}"
    )


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        pytest.param(["--log-format", "xml"], {}, "'xml' is not one of", id="flag"),
        pytest.param([], {"CADENZA_LOG_FORMAT": "xml"}, "invalid setting log_format", id="env"),
        pytest.param([], {"CADENZA_LOG_LEVEL": "loud"}, "invalid setting log_level", id="level"),
    ],
)
def test_bad_log_setting_is_exit_2(
    args: list[str], env: dict[str, str], expected: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [CADENZA, "worker", "--db", f"sqlite:///{tmp_path / 'c.db'}", *args],
        capture_output=True, text=True, env=cli_env(**env), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert expected in done.stderr
    assert list(tmp_path.iterdir()) == []
