"""The `cadenza` command as a newcomer meets it: real subprocesses, real files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from support.processes import CADENZA, cli_env, create_tenant, run_cli, running_server

from api.cli.main import cli


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "mysql://root@localhost/x",
            "unsupported database URL scheme 'mysql'",
            id="unknown-scheme",
        ),
        pytest.param(
            "postgresql://nobody@127.0.0.1:1/none",
            "cannot open postgresql+asyncpg",
            id="unreachable-postgresql",
        ),
        pytest.param("sqlite:///", "in-memory SQLite", id="sqlite-without-file"),
        pytest.param(
            "sqlite:////no/such/dir/c.db",
            "directory /no/such/dir does not exist",
            id="sqlite-missing-directory",
        ),
    ],
)
def test_bad_database_is_one_line_exit_2(url: str, expected: str, tmp_path: Path) -> None:
    done = run_cli("db", "upgrade", "--db", url, cwd=tmp_path)
    assert done.returncode == 2
    assert expected in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to mount a read-only file system")
def test_read_only_sqlite_directory_is_refused_without_leftovers(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    # A private mount namespace: the read-only tmpfs vanishes with the command.
    upgrade = f"{CADENZA} db upgrade --db sqlite:///{locked}/c.db"
    script = f"mount -t tmpfs -o ro tmpfs {locked} && exec {upgrade}"
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "read-only" in done.stderr and "--db" in done.stderr
    assert done.stderr.count("\n") == 1


def test_tenant_create_json_then_list(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/c.db"
    created = create_tenant(url, "acme")
    assert created["tenant_id"].startswith("t_") and created["api_key"].startswith("cdz_")
    listed = json.loads(run_cli("tenant", "list", "--json", "--db", url).stdout)
    assert [t["name"] for t in listed] == ["acme"]
    again = run_cli("tenant", "create", "acme", "--db", url)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_key_create_and_revoke(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/c.db"
    create_tenant(url, "acme")
    made = run_cli("key", "create", "acme", "--role", "viewer", "--json", "--db", url)
    key = json.loads(made.stdout)
    assert made.returncode == 0 and key["key_id"].startswith("k_")
    assert run_cli("key", "revoke", key["key_id"], "--db", url).returncode == 0
    listing = run_cli("key", "list", "acme", "--db", url).stdout
    assert f"{key['key_id']}\t" in listing and "revoked" in listing
    missing = run_cli("key", "revoke", "k_nope", "--db", url)
    assert missing.returncode == 2 and "no API key 'k_nope'" in missing.stderr


def test_every_command_has_help() -> None:
    """The installed command lists its commands; each loads and describes its own usage (in
    this process: one interpreter per command only repeated the same imports)."""
    top = run_cli("--help")
    commands = [
        line.split()[0] for line in top.stdout.split("Commands:")[1].splitlines() if line.strip()
    ]
    assert {"serve", "db", "tenant", "key"} <= set(commands)
    for command in commands:
        shown = CliRunner().invoke(cli, [command, "--help"], prog_name="cadenza")
        assert shown.exit_code == 0, (command, shown.output)
        assert f"Usage: cadenza {command} " in shown.output, shown.output


def test_serve_creates_demo_tenant_once_and_is_ready(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/cadenza.db"
    with running_server(url) as server:
        assert server.demo_key and server.demo_key.startswith("cdz_")
        ready = httpx.get(server.base_url + "/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
    with running_server(url) as again:
        assert again.demo_key is None
    listed = json.loads(run_cli("tenant", "list", "--json", "--db", url).stdout)
    assert [t["name"] for t in listed] == ["demo"]
