"""The worked examples of docs/client.md run as written against a live server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cadenza_client import Role
from support.client_tenants import Tenant
from support.processes import Server

EXAMPLES = Path(__file__).resolve().parents[2] / "client" / "examples"


def run_example(name: str, server: Server, key: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), server.base_url, key],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_sync_example_walks_preview_create_stale_errors_data_and_delete(
    client_server: Server, tenant: Tenant
) -> None:
    printed = run_example("quickstart_sync.py", client_server, tenant.keys[Role.EDITOR])
    assert "preview: every weekday at 9:00 (Europe/Berlin)" in printed
    assert "stale: the rule is at version 2 now" in printed
    assert "refused: schedule -" in printed
    assert "test run: ok result 1 would write {'reminders-sent': 1}" in printed
    assert "data: 41" in printed
    assert "rules: ['stand-up reminder']" in printed
    assert "deleted: r_" in printed


@pytest.mark.parametrize("example", ["quickstart_async.py"])
def test_the_async_example_creates_concurrently_pauses_lists_triggers_and_deletes(
    client_server: Server, tenant: Tenant, example: str
) -> None:
    printed = run_example(example, client_server, tenant.keys[Role.EDITOR])
    assert "created: ['ping 0', 'ping 1', 'ping 2']" in printed
    assert "paused: ping 0 enabled False" in printed
    assert printed.count("enabled: ping") == 2
    assert "triggered: " in printed
    assert "gone: 404 /problems/not-found" in printed


@pytest.mark.parametrize("example", ["quickstart_sync.py", "quickstart_async.py"])
def test_docs_client_md_shows_the_examples_as_they_are_run(example: str) -> None:
    guide = (EXAMPLES.parents[1] / "docs" / "client.md").read_text()
    assert f"```python\n{(EXAMPLES / example).read_text()}```" in guide
