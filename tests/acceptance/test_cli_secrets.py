"""`cadenza secrets rotate` re-seals every stored secret in place with a new operator key, and
survives a kill -9 midway: every secret still opens, and `cadenza secrets reseal` finishes."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from support.processes import CADENZA, cli_env, run_cli

from tenants import secrets
from tenants.db import create_engine
from tenants.key_file import ensure_key_file, read_ring
from tenants.registry import create_tenant
from tenants.secret_box import SecretBox, key_id
from tenants.secrets import SecretPurpose

TENANTS, PER_TENANT = 10, 300
SIGNING = SecretPurpose.WEBHOOK_SIGNING


async def _store_secrets(db: AsyncEngine, box: SecretBox) -> dict[str, list[str]]:
    """TENANTS times PER_TENANT sealed secrets; their plain values by tenant, in id order."""
    stored: dict[str, list[str]] = {}
    now = datetime.now(UTC)
    async with db.begin() as conn:
        for n in range(TENANTS):
            tenant, _ = await create_tenant(conn, f"t{n}")
            values = [f"whsec_{n}_{i}_{'x' * 20}" for i in range(PER_TENANT)]
            for value in values:
                await secrets.add(conn, box, tenant.id, SIGNING, value, value[:10], now)
            stored[tenant.id] = values
    return stored


async def _opened(db: AsyncEngine, box: SecretBox, tenant_ids: list[str]) -> dict[str, list[str]]:
    async with db.connect() as conn:
        live = await secrets.live(conn, box, tenant_ids, SIGNING, datetime.now(UTC))
    return {tenant_id: [s.value for s in reversed(found)] for tenant_id, found in live.items()}


async def _kids(db: AsyncEngine) -> dict[str, int]:
    async with db.connect() as conn:
        return await secrets.key_ids_in_use(conn)


async def test_rotation_killed_midway_loses_nothing_and_reseal_finishes(
    tmp_path: Path, sqlite_template: Path
) -> None:
    database = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, database)
    url = f"sqlite+aiosqlite:///{database}"
    key_path = tmp_path / "cadenza.db.key"  # the default key file of this database
    box = SecretBox(ensure_key_file(key_path), reload=lambda: read_ring(key_path))
    old_kid = box.ring.primary_id
    db = create_engine(url)
    try:
        stored = await _store_secrets(db, box)
        output = tmp_path / "rotate.out"
        with output.open("wb") as sink:
            rotating = subprocess.Popen(
                [CADENZA, "secrets", "rotate", "--db", url, "--batch-size", "1"],
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=cli_env(),
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(await _kids(db)) < 2:
            await asyncio.sleep(0.01)
        rotating.send_signal(signal.SIGKILL)  # midway: some rows re-sealed, others not
        rotating.wait(timeout=30)
        mixed = await _kids(db)
        ring = read_ring(key_path)
        assert len(mixed) == 2 and old_kid in mixed, (mixed, output.read_text())
        assert ring.ids[1] == old_kid and ring.primary_id in mixed  # new key first, old kept
        assert await _opened(db, box, list(stored)) == stored  # every secret still opens
        finished = run_cli("secrets", "reseal", "--db", url)
        assert finished.returncode == 0, finished.stderr
        new_kid = read_ring(key_path).primary_id
        assert await _kids(db) == {new_kid: TENANTS * PER_TENANT}
        assert read_ring(key_path).ids == (new_kid,), finished.stdout  # the old key is gone
        assert await _opened(db, box, list(stored)) == stored
        status = run_cli("secrets", "status", "--db", url)
        assert f"key {new_kid} (seals): {TENANTS * PER_TENANT} secrets" in status.stdout
    finally:
        await db.dispose()


def test_new_key_prints_a_key_or_writes_a_new_key_file(tmp_path: Path) -> None:
    printed = run_cli("secrets", "new-key")
    assert printed.returncode == 0 and len(printed.stdout.strip()) == 44
    path = tmp_path / "fleet.key"
    assert run_cli("secrets", "new-key", "--file", str(path)).returncode == 0
    assert read_ring(path).ids == (key_id(read_ring(path).keys[0]),)
    again = run_cli("secrets", "new-key", "--file", str(path))
    assert again.returncode != 0 and "exists" in again.stderr


@pytest.mark.postgres
def test_postgresql_without_an_operator_key_is_refused_with_the_fix(pg_cluster) -> None:
    url = pg_cluster.url(pg_cluster.create_database(template="cadenza_template"))
    done = run_cli("worker", "--db", url)
    assert done.returncode == 2
    assert "no operator key for a PostgreSQL database" in done.stderr
    assert "CADENZA_SECRET_KEY_FILE" in done.stderr and done.stderr.count("\n") == 1
