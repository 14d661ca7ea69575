"""A backup taken while the engine runs and the API writes restores into a fresh server that
finds every rule and every run committed before the backup began: `cadenza db backup` and
`restore` on SQLite, and the documented pg_dump / pg_restore on PostgreSQL."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from support.operator import ADMIN_TOKEN, BUSY_QUOTAS, create_tenant_over_api
from support.polling import until
from support.postgres import PostgresCluster
from support.processes import Server, run_cli, running_server

SCRIPT = "def main(ctx):\n    ctx.kv.set('n', ctx.scheduled_at)\n    return ctx.scheduled_at\n"
EVERY_SECOND = {"schedule": "every 1s", "timezone": "UTC", "code": SCRIPT}
QUOTAS = {**BUSY_QUOTAS, "max_concurrency": 4}
ENV = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN}

#: How long a test waits for the engine (generous: the machine is shared).
WAIT_S = 60.0


def _tenant_key(server: Server) -> str:
    return str(create_tenant_over_api(server.base_url, QUOTAS)["api_key"])


def _all(client: httpx.Client, path: str) -> dict[object, dict]:
    """Every item of a paged list, by id."""
    found, cursor = {}, None
    while True:
        params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        page = client.get(path, params=params).json()
        found |= {item["id"]: item for item in page["items"]}
        cursor = page["next_cursor"]
        if not cursor:
            return found


class RuleWriter:
    """Creates rules through the API on a thread; keeps the ids whose 201 came back."""

    def __init__(self, client: httpx.Client) -> None:
        self.client, self.created = client, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            body = {"name": f"w{len(self.created)}", **EVERY_SECOND, "enabled": False}
            answer = self.client.post("/v1/rules", json=body)
            if answer.status_code == 201:
                self.created.append(answer.json()["id"])

    def __enter__(self) -> RuleWriter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def _under_load_then_backup(
    server: Server, take_backup: Callable[[], None]
) -> tuple[str, dict, dict]:
    """Rules running every second and a client writing rules; the backup runs meanwhile.
    Returns the key, and the rules and runs committed before the backup began."""
    key = _tenant_key(server)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as tenant:
        for n in range(3):
            created = tenant.post("/v1/rules", json={"name": f"r{n}", **EVERY_SECOND})
            assert created.status_code == 201, created.text
        until(lambda: len(_all(tenant, "/v1/runs")) >= 10, timeout_s=WAIT_S)
        with RuleWriter(tenant) as writer:
            until(lambda: len(writer.created) >= 5, timeout_s=WAIT_S)
            rules, runs = _all(tenant, "/v1/rules"), _all(tenant, "/v1/runs")
            take_backup()
            until(
                lambda: len(_all(tenant, "/v1/runs")) > len(runs), timeout_s=WAIT_S
            )  # still running
    return key, rules, runs


def _finds_everything(server: Server, key: str, rules: dict, runs: dict) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as tenant:
        restored_rules, restored_runs = _all(tenant, "/v1/rules"), _all(tenant, "/v1/runs")
    assert set(rules) <= set(restored_rules)
    assert all(restored_runs.get(run_id) == run for run_id, run in runs.items())
    assert len(runs) >= 10 and len(rules) >= 3


def test_sqlite_backup_under_load_restores_every_committed_rule_and_run(
    tmp_path: Path, sqlite_template: Path
) -> None:
    live, fresh = tmp_path / "live", tmp_path / "fresh"
    live.mkdir()
    fresh.mkdir()
    shutil.copy(sqlite_template, live / "cadenza.db")
    url = f"sqlite+aiosqlite:///{live / 'cadenza.db'}"
    backup_file = tmp_path / "backup.db"

    def take_backup() -> None:
        done = run_cli("db", "backup", str(backup_file), "--db", url)
        assert done.returncode == 0, done.stderr

    with running_server(url, "--no-demo", env=ENV) as server:
        key, rules, runs = _under_load_then_backup(server, take_backup)
    again = run_cli("db", "backup", str(backup_file), "--db", url)
    assert again.returncode == 2 and "exists" in again.stderr  # never overwrites
    restored_url = f"sqlite+aiosqlite:///{fresh / 'cadenza.db'}"
    done = run_cli("db", "restore", str(backup_file), "--db", restored_url)
    assert done.returncode == 0, done.stderr
    over = run_cli("db", "restore", str(backup_file), "--db", url)
    assert over.returncode == 2 and "move the old database files away" in over.stderr
    shutil.copy(live / "cadenza.db.key", fresh / "cadenza.db.key")  # kept apart, restored too
    with running_server(restored_url, "--no-demo", env=ENV) as restored:
        _finds_everything(restored, key, rules, runs)


@pytest.mark.postgres
def test_postgresql_pg_dump_under_load_restores_every_committed_rule_and_run(
    pg_cluster: PostgresCluster,
) -> None:
    live = pg_cluster.create_database(template="cadenza_template")
    dump_file = pg_cluster.base_dir / f"{live}.dump"  # where the cluster's owner may write

    def take_backup() -> None:  # the command docs/operations.md gives
        pg_cluster.tool("pg_dump", "--format=custom", f"--file={dump_file}", live)

    with running_server(pg_cluster.url(live), "--no-demo", env=ENV) as server:
        key, rules, runs = _under_load_then_backup(server, take_backup)
    fresh = pg_cluster.create_database()
    pg_cluster.tool("pg_restore", "--no-owner", f"--dbname={fresh}", str(dump_file))
    with running_server(pg_cluster.url(fresh), "--no-demo", env=ENV) as restored:
        _finds_everything(restored, key, rules, runs)
