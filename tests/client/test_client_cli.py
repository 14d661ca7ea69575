"""The `cadenza` remote commands, run as an operator would: real subprocesses, a live server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cadenza_client import (
    Client,
    DstGap,
    MisfirePolicy,
    NewRule,
    OverlapPolicy,
    QuotaChanges,
    Role,
    RuleChanges,
)
from support.client_tenants import Tenant
from support.processes import Server, run_cli

CODE = 'def main(ctx):\n    ctx.emit("ping", ctx.params)\n    return 1\n'
BERLIN_WEEKDAYS = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0"


def cadenza(server: Server, key: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """`cadenza ARGS --url … --key …`: exit code, stdout, stderr."""
    done = run_cli(*args, "--url", server.base_url, "--key", key, input=stdin)
    return done.returncode, done.stdout, done.stderr


def test_rules_list_get_pause_resume_trigger_and_delete(
    client_server: Server, tenant: Tenant, editor: Client
) -> None:
    key = tenant.keys[Role.EDITOR]
    rule = editor.rules.create(NewRule(name="stand-up", schedule=BERLIN_WEEKDAYS, code=CODE))
    code, out, _ = cadenza(client_server, key, "rules", "list")
    assert code == 0 and out.startswith(f"{rule.id}\tenabled\t") and "\tstand-up\t" in out
    code, out, _ = cadenza(client_server, key, "rules", "pause", rule.id)
    assert (code, out) == (0, f"rule {rule.id} paused (version 2)\n")
    code, out, _ = cadenza(client_server, key, "rules", "list", "--paused", "--json")
    assert [r["id"] for r in json.loads(out)] == [rule.id]
    code, out, _ = cadenza(client_server, key, "rules", "resume", rule.id)
    assert code == 0 and out.startswith(f"rule {rule.id} resumed (version 3)")
    code, out, _ = cadenza(client_server, key, "rules", "get", rule.id)
    assert json.loads(out)["version"] == 3
    code, out, _ = cadenza(client_server, key, "rules", "trigger", rule.id)
    assert code == 0 and f"of rule {rule.id} planned" in out
    editor.rules.update(rule.id, RuleChanges(name="renamed"))  # version 4: version 1 is stale
    code, _, err = cadenza(client_server, key, "rules", "delete", rule.id, "--version", "1")
    assert code == 2 and "412 /problems/stale-version" in err and err.count("\n") == 1
    code, out, _ = cadenza(client_server, key, "rules", "delete", rule.id, "--version", "4")
    assert (code, out) == (0, f"rule {rule.id} deleted\n")
    code, _, err = cadenza(client_server, key, "rules", "get", rule.id)
    assert code == 2 and "404 /problems/not-found" in err
    code, _, err = cadenza(client_server, key, "rules", "pause", "r_1/x")
    assert code == 2 and "is not an id" in err and "Traceback" not in err


def test_a_wrong_key_or_no_server_is_one_line_and_exit_2(client_server: Server) -> None:
    code, _, err = cadenza(client_server, "cdz_" + "x" * 32, "rules", "list")
    assert code == 2 and err.startswith("cadenza: error: 401 /problems/unauthorized")
    done = run_cli("runs", "list", "--url", "http://127.0.0.1:9", "--key", "k")
    assert done.returncode == 2 and "ConnectError" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def _varied_rules() -> list[NewRule]:
    """Rules that use the less common fields, so a round trip shows each survives."""
    return [
        NewRule(
            name="stand-up",
            schedule=BERLIN_WEEKDAYS,
            timezone="Europe/Berlin",
            code=CODE,
            params={"to": "team@example.com", "nested": [1, {"a": None}]},
            description="every weekday",
            dst_gap=DstGap.SKIP,
            misfire_policy=MisfirePolicy.SKIP,
            misfire_grace_s=120,
            overlap_policy=OverlapPolicy.QUEUE_ONE,
            max_attempts=5,
            backoff_s=2.5,
            priority=-3,
            jitter_s=4,
        ),
        NewRule(
            name="paused hourly",
            schedule="every 1h",
            code=CODE,
            enabled=False,
            start_at=datetime(2030, 1, 1, tzinfo=UTC),
            end_at=datetime(2031, 1, 1, tzinfo=UTC),
        ),
        NewRule(name="cron", schedule="30 9 * * 1-5", code=CODE, timeout_ms=1500, memory_mb=64),
    ]


def _by_name(rules: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rules, key=lambda rule: str(rule["name"]))


def _definitions(client: Client) -> list[dict[str, Any]]:
    return _by_name(rule.as_new().model_dump(mode="json") for rule in client.rules.list())


def test_export_then_import_into_a_fresh_tenant_recreates_the_same_rules(
    client_server: Server,
    tenant: Tenant,
    new_tenant: Callable[..., Tenant],
    connect: Callable[..., Client],
    tmp_path: Path,
) -> None:
    source = connect(tenant.keys[Role.EDITOR])
    for rule in _varied_rules():
        source.rules.create(rule)
    exported = tmp_path / "rules.json"
    code, _, err = cadenza(
        client_server, tenant.keys[Role.VIEWER], "rules", "export", "-o", str(exported)
    )
    assert (code, err) == (0, "exported 3 rules\n")
    document = json.loads(exported.read_text())
    assert (document["format"], document["version"], document["source"]) == (
        "cadenza-rules",
        1,
        tenant.name,
    )

    fresh = new_tenant()
    code, out, _ = cadenza(client_server, fresh.keys[Role.EDITOR], "rules", "import", str(exported))
    assert code == 0 and out.count("created r_") == 3
    copied = connect(fresh.keys[Role.EDITOR])
    assert _definitions(copied) == _definitions(source)
    assert {r.enabled for r in copied.rules.list() if r.name == "paused hourly"} == {False}

    code, again, _ = cadenza(client_server, fresh.keys[Role.VIEWER], "rules", "export")
    assert _by_name(json.loads(again)["rules"]) == _by_name(document["rules"])


def test_an_import_with_one_bad_rule_creates_none_and_names_it(
    client_server: Server, tenant: Tenant, editor: Client, tmp_path: Path
) -> None:
    rules = [
        NewRule(name="fine", schedule="every 1h", code=CODE).body(),
        NewRule(name="broken", schedule="FREQ=DAILY;BYHOUR=25", code=CODE).body(),
    ]
    document = {"exported_at": "2030-01-01T00:00:00Z", "rules": rules}
    code, _, err = cadenza(
        client_server, tenant.keys[Role.EDITOR], "rules", "import", "-", stdin=json.dumps(document)
    )
    assert code == 2
    assert "rule 2 ('broken'): 422 /problems/invalid-schedule: schedule" in err
    assert list(editor.rules.list()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", "is not a rules export: file: Invalid JSON"),
        ('{"exported_at": "2030-01-01T00:00:00Z", "rules": [], "version": 2}', "version:"),
        ('{"exported_at": "2030-01-01T00:00:00Z", "rules": [{"name": "x"}]}', "rules.0.schedule"),
    ],
)
def test_a_file_that_is_not_an_export_is_refused_with_where(
    client_server: Server, tenant: Tenant, text: str, expected: str
) -> None:
    code, _, err = cadenza(
        client_server, tenant.keys[Role.EDITOR], "rules", "import", "-", stdin=text
    )
    assert code == 2 and expected in err, err


def test_an_import_past_the_rule_quota_creates_none(
    client_server: Server, new_tenant: Callable[..., Tenant], tmp_path: Path
) -> None:
    small = new_tenant(QuotaChanges(max_rules=2))
    document = {
        "exported_at": "2030-01-01T00:00:00Z",
        "rules": [NewRule(name=f"r{n}", schedule="every 1h", code=CODE).body() for n in range(3)],
    }
    code, _, err = cadenza(
        client_server, small.keys[Role.EDITOR], "rules", "import", "-", stdin=json.dumps(document)
    )
    assert code == 2 and "3 rules, but the tenant's quota leaves room for 2" in err
    code, out, _ = cadenza(
        client_server, small.keys[Role.EDITOR], "rules", "import", "--dry-run", "-",
        stdin=json.dumps({**document, "rules": document["rules"][:2]}),
    )  # fmt: skip
    assert (code, out) == (0, "2 rules are valid; none created (--dry-run)\n")


def test_actions_submit_list_cancel_and_runs_list_get(
    client_server: Server, tenant: Tenant, tmp_path: Path, eventually: Callable[..., object]
) -> None:
    key = tenant.keys[Role.EDITOR]
    script = tmp_path / "script.py"
    script.write_text(CODE)
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    code, out, _ = cadenza(
        client_server, key, "actions", "submit", "--at", later, "--code-file", str(script),
        "--idempotency-key", "invoice-1", "--params", '{"n": 1}', "--json",
    )  # fmt: skip
    assert code == 0
    action = json.loads(out)
    assert (action["key"], action["status"]) == ("invoice-1", "pending")
    code, out, _ = cadenza(client_server, key, "actions", "list", "--status", "pending")
    assert out.startswith(f"{action['id']}\tpending\t")
    code, out, _ = cadenza(client_server, key, "actions", "cancel", str(action["id"]))
    assert (code, out) == (0, f"action {action['id']} cancelled\n")

    now = datetime.now(UTC).isoformat()
    code, out, _ = cadenza(
        client_server, key, "actions", "submit", "--at", now, "--code-file", "-", stdin=CODE
    )
    assert code == 0 and out.startswith("action ")

    def one_run() -> list[dict[str, object]]:
        return json.loads(cadenza(client_server, key, "runs", "list", "--json")[1])

    [run] = eventually(one_run)
    assert run["outcome"] == "ok"
    code, out, _ = cadenza(client_server, key, "runs", "get", str(run["id"]))
    assert json.loads(out)["result"] == 1
    code, out, _ = cadenza(client_server, key, "runs", "list", "--outcome", "error")
    assert (code, out) == (0, "")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--at", "2030-01-01T09:00:00"], "has no offset"),
        (["--at", "tomorrow", "--rule", "r_1"], "is not an ISO 8601 instant"),
        (["--at", "2030-01-01T09:00:00Z"], "give exactly one of --code-file and --rule"),
        (["--at", "2030-01-01T09:00:00Z", "--rule", "r_1", "--params", "[1]"], "JSON object"),
    ],
)
def test_bad_submit_options_are_refused_before_any_request(
    client_server: Server, tenant: Tenant, args: list[str], expected: str
) -> None:
    code, _, err = cadenza(client_server, tenant.keys[Role.EDITOR], "actions", "submit", *args)
    assert code == 2 and expected in err, err


WITHOUT_CLIENT = """
import sys

class NoClient:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "cadenza_client":
            raise ModuleNotFoundError(f"No module named {name!r}", name="cadenza_client")

sys.meta_path.insert(0, NoClient())
sys.argv = ["cadenza", "rules", "list", "--key", "cdz_unused"]
from api.cli.main import main
main()
"""


def test_without_the_client_library_a_remote_command_says_how_to_install_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_CLIENT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "cadenza: error: `cadenza rules` needs the client library: "
        "pip install -e ./client (see docs/client.md)\n"
    )
