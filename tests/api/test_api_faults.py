"""Faults answered honestly: with the database stopped, locked past its busy timeout or out of
disk, API routes answer 503 problem+json with Retry-After (never 500, never a hang), /healthz
holds, /readyz fails while the database is away, and everything works again once it is back,
with nothing that was acknowledged lost and the SQLite file sound."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.operator import ADMIN_TOKEN, BUSY_QUOTAS, create_tenant_over_api, tenant_client
from support.polling import until
from support.postgres import PostgresCluster, find_bin_dir
from support.processes import Server, run_cli, running_server

SCRIPT = "def main(ctx):\n    ctx.kv.set('beat', ctx.scheduled_at)\n    return 1\n"
EVERY_SECOND = {"name": "beat", "schedule": "every 1s", "timezone": "UTC", "code": SCRIPT}
BUSY_TIMEOUT_S = 5.0  # tenants.db.SQLITE_BUSY_TIMEOUT_MS
RECOVERY_DEADLINE_S = 60.0


def _tenant(server: Server) -> httpx.Client:
    """A fresh tenant allowed a rule every second, and a client holding its admin key."""
    created = create_tenant_over_api(server.base_url, BUSY_QUOTAS)
    return tenant_client(server.base_url, created["api_key"])


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert int(response.headers["Retry-After"]) >= 1
    body = response.json()
    assert body["type"] == "/problems/unavailable" and body["detail"], body


class Load:
    """A client reading and writing the API on a thread; every answer's status is kept."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.statuses: list[int] = []
        self.bad: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1
            for response in (
                self.client.get("/v1/rules"),
                self.client.put(f"/v1/kv/load-{n % 50}", json={"value": n}),
            ):
                self.statuses.append(response.status_code)
                if response.status_code >= 500 and response.status_code != 503:
                    self.bad.append(response.text[:300])
                elif response.status_code == 503 and "Retry-After" not in response.headers:
                    self.bad.append("503 without Retry-After")

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)


@pytest.fixture
def own_postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL of this test's own, to stop and start (the session's one serves others)."""
    bin_dir = find_bin_dir()
    assert bin_dir is not None, "PostgreSQL server binaries are needed"
    cluster = PostgresCluster(bin_dir)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def _runs(client: httpx.Client) -> int:
    return len(client.get("/v1/runs", params={"limit": 200}).json()["items"])


@pytest.mark.postgres
@pytest.mark.slow
def test_postgresql_stopped_under_load_is_503_then_recovers(own_postgres: PostgresCluster) -> None:
    own_postgres.sql("CREATE DATABASE cadenza")
    url = own_postgres.url("cadenza")
    assert run_cli("db", "upgrade", "--db", url).returncode == 0
    env = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN}
    with running_server(url, "--no-demo", env=env) as server, _tenant(server) as tenant:
        assert tenant.post("/v1/rules", json=EVERY_SECOND).status_code == 201
        until(lambda: _runs(tenant) >= 2, timeout_s=RECOVERY_DEADLINE_S)
        with Load(tenant) as load:
            until(lambda: len(load.statuses) > 20, timeout_s=RECOVERY_DEADLINE_S)
            own_postgres.stop_server()
            _assert_unavailable(tenant.get("/v1/rules"))
            _assert_unavailable(tenant.post("/v1/rules", json={**EVERY_SECOND, "name": "x"}))
            assert httpx.get(f"{server.base_url}/healthz").status_code == 200
            not_ready = httpx.get(f"{server.base_url}/readyz")
            assert not_ready.status_code == 503 and not_ready.headers["Retry-After"]
            time.sleep(3)  # an outage of a few seconds, under load; nothing waits on it
            own_postgres.start_server()
            until(
                lambda: httpx.get(f"{server.base_url}/readyz").status_code == 200,
                timeout_s=RECOVERY_DEADLINE_S,
            )
            runs_before = _runs(tenant)
            until(
                lambda: _runs(tenant) > runs_before + 2, timeout_s=RECOVERY_DEADLINE_S
            )  # the engine runs again
        assert server.process.poll() is None
        log = "".join(server.lines)
    assert 503 in load.statuses and load.bad == [], log[log.find("unmapped") :][:3000]
    assert load.statuses[-1] == 200


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Server]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with running_server(url, "--no-demo", env={"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN}) as server:
        yield server


@pytest.fixture
def sqlite_tenant(sqlite_server: Server) -> Iterator[httpx.Client]:
    with _tenant(sqlite_server) as client:
        yield client


def test_sqlite_write_lock_held_past_busy_timeout_is_503_then_works(
    sqlite_tenant: httpx.Client, tmp_path: Path
) -> None:
    tenant = sqlite_tenant
    # the script's check (a sandbox start on a busy machine) is done, and its verdict kept,
    # before the lock is taken: the wait measured below is the lock's alone
    assert tenant.post("/v1/rules/validate", json=EVERY_SECOND).json() == {"valid": True}
    holder = sqlite3.connect(tmp_path / "cadenza.db", isolation_level=None, timeout=30)
    holder.execute("BEGIN IMMEDIATE")  # another process holds SQLite's one write lock
    try:
        started = time.monotonic()
        refused = tenant.post("/v1/rules", json=EVERY_SECOND)
        waited_s = time.monotonic() - started
        _assert_unavailable(refused)
        assert "locked" in refused.json()["detail"]
        assert BUSY_TIMEOUT_S * 0.9 <= waited_s < BUSY_TIMEOUT_S * 3
        assert tenant.get("/v1/tenant").status_code == 200  # reads never wait for the writer
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert tenant.post("/v1/rules", json=EVERY_SECOND).status_code == 201
    assert [r["name"] for r in tenant.get("/v1/rules").json()["items"]] == ["beat"]


@pytest.fixture
def small_disk(tmp_path: Path, sqlite_template: Path) -> Iterator[Path]:
    """A real file system of 8 MiB (tmpfs), holding a migrated database and 2 MiB of ballast
    to free later; unmounted after the test."""
    where = tmp_path / "disk"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], capture_output=True
    )
    assert mounted.returncode == 0, f"mounting a small tmpfs needs root: {mounted.stderr!r}"
    try:
        shutil.copy(sqlite_template, where / "cadenza.db")
        (where / "ballast").write_bytes(b"\0" * 2 * 1024 * 1024)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)


def test_sqlite_disk_full_is_a_clear_error_keeps_acknowledged_writes_and_recovers(
    small_disk: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{small_disk / 'cadenza.db'}"
    with (
        running_server(url, "--no-demo", env={"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN}) as server,
        _tenant(server) as tenant,
    ):
        acknowledged, refused = [], []
        for n in range(400):  # ~12 MiB of items: more than the disk holds
            response = tenant.put(f"/v1/kv/item-{n}", json={"value": "x" * 30_000})
            if response.status_code == 200:
                acknowledged.append(n)
            else:
                refused.append(response)
                if len(refused) >= 3:
                    break
        assert refused, "the disk never filled up"
        for response in refused:
            _assert_unavailable(response)
            assert "disk is full or failing" in response.json()["detail"]
        assert server.process.poll() is None
        assert tenant.get(f"/v1/kv/item-{acknowledged[-1]}").status_code == 200
        (small_disk / "ballast").unlink()  # the operator frees space
        assert tenant.put("/v1/kv/after", json={"value": 1}).status_code == 200
        stored = _all_keys(tenant)
    assert {f"item-{n}" for n in acknowledged} | {"after"} <= stored
    with sqlite3.connect(small_disk / "cadenza.db") as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _all_keys(client: httpx.Client) -> set[str]:
    keys, cursor = set(), None
    while True:
        page = client.get("/v1/kv", params={"limit": 200, **({"cursor": cursor} if cursor else {})})
        keys |= {item["key"] for item in page.json()["items"]}
        cursor = page.json()["next_cursor"]
        if not cursor:
            return keys
