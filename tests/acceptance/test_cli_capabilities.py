"""`cadenza capabilities grant/revoke/list` through the real CLI, with a registry file and the
plugin's entry points; a bad registry stops a command with a message naming what is wrong."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.host_product import IN_PROCESS, PLUGIN_DIR
from support.processes import CADENZA, cli_env, create_tenant

REGISTRY = {
    "capabilities": [
        *IN_PROCESS,
        {"name": "mail.send", "schema": {"type": "object"}, "url": "http://127.0.0.1:9/m"},
    ]
}


def _cli(registry: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(
        CADENZA_CAPABILITIES_FILE=str(registry),
        CADENZA_CAPABILITY_SIGNING_KEY="a-signing-key-of-the-cli-test",
        PYTHONPATH=str(PLUGIN_DIR),
    )
    return subprocess.run(
        [CADENZA, "capabilities", *args], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.mark.timeout(400)  # eight commands, each a Python start (seconds on a busy machine)
# SQLite only: the subject is the command line; the grants' store is the one the API's
# capability tests run on both databases.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_operator_grants_lists_and_revokes_from_the_command_line(
    database_url: str, tmp_path: Path
) -> None:
    registry = tmp_path / "capabilities.json"
    registry.write_text(json.dumps(REGISTRY))
    tenant = create_tenant(database_url, "shop")
    for name in ("mail.send", "test.echo"):
        done = _cli(registry, "grant", "shop", name, "--db", database_url)
        assert done.returncode == 0 and f"granted {name}" in done.stdout, done.stderr
    listed = _cli(registry, "list", tenant["tenant_id"], "--json", "--db", database_url)
    assert [g["name"] for g in json.loads(listed.stdout)] == ["mail.send", "test.echo"]
    unknown = _cli(registry, "grant", "shop", "no.such", "--db", database_url)
    assert unknown.returncode != 0 and "no capability 'no.such'" in unknown.stderr
    assert "mail.send" in unknown.stderr
    assert _cli(registry, "revoke", "shop", "mail.send", "--db", database_url).returncode == 0
    again = _cli(registry, "revoke", "shop", "mail.send", "--db", database_url)
    assert again.returncode != 0 and "holds no grant of capability 'mail.send'" in again.stderr
    listed = _cli(registry, "list", "shop", "--json", "--db", database_url)
    assert [g["name"] for g in json.loads(listed.stdout)] == ["test.echo"]


@pytest.mark.parametrize(
    "entry, said",
    [
        ({"name": "Bad Name", "schema": {}, "entry_point": "x"}, "a name is 1-4 dotted"),
        ({"name": "a.b", "schema": {}}, "exactly one of 'url' and 'entry_point'"),
        ({"name": "a.b", "schema": {"type": 5}, "entry_point": "test.echo"}, "not a JSON Schema"),
        ({"name": "a.b", "schema": {}, "url": "ftp://x/"}, "'url' must be an http(s) URL"),
        (
            {"name": "a.b", "schema": {}, "entry_point": "test.echo", "max_answer_bytes": 10**9},
            "max_answer_bytes",
        ),
        ({"name": "a.b", "schema": {}, "entry_point": "test.echo", "colour": 1}, "unknown fields"),
        (
            {"name": "a.b", "schema": {}, "entry_point": "not.installed"},
            "no entry point 'not.installed'",
        ),
    ],
    ids=[
        "name",
        "no-implementation",
        "schema",
        "scheme",
        "answer-cap",
        "unknown-field",
        "entry-point",
    ],
)
def test_a_bad_registry_stops_a_command_with_a_message_naming_it(
    tmp_path: Path, entry: dict[str, object], said: str
) -> None:
    registry = tmp_path / "capabilities.json"
    registry.write_text(json.dumps({"capabilities": [entry]}))
    done = _cli(registry, "list", "shop", "--db", f"sqlite+aiosqlite:///{tmp_path}/c.db")
    assert done.returncode != 0 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
