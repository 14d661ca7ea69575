"""Schemathesis against the live server's /openapi.json: no 5xx, every answer matches the schema.

Two runs: tenant routes with a fresh tenant's admin key (its rate limit raised so the fuzzer
is not merely throttled), operator routes with the operator token. Excluded, with reasons:
`positive_data_acceptance` (a schedule or script can be schema-valid text and still wrong, so
a 422 there is correct) and revoking keys (the fuzzer would revoke the key it is using). The
stateful phase is left out to keep the run under a minute on a small machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.operator import ADMIN_TOKEN
from support.processes import cli_env

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
EXAMPLES_PER_OPERATION = "3"


def _fuzz(base_url: str, token: str, *scope: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            SCHEMATHESIS,
            "run",
            f"{base_url}/openapi.json",
            "--header",
            f"Authorization: Bearer {token}",
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
            "--max-examples",
            EXAMPLES_PER_OPERATION,
            "--seed",
            "20261123",
            "--generation-database",
            "none",
            "--phases",
            "examples,coverage,fuzzing",
            "--no-color",
            *scope,
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=110,
        env=cli_env(),
    )


def _failures(done: subprocess.CompletedProcess[str]) -> str:
    """The FAILURES section of the report (cut short: request bodies can be megabytes)."""
    text = done.stdout
    start = text.find("FAILURES")
    return "\n".join(line[:300] for line in text[start:].splitlines()[:120]) + done.stderr[-2000:]


def test_tenant_routes_survive_fuzzing(server, new_tenant, tmp_path: Path) -> None:
    t = new_tenant(quotas={"requests_per_minute": 1_000_000})
    done = _fuzz(
        server.base_url,
        t.keys["admin"],
        "--exclude-path-regex",
        "^/v1/admin",
        "--exclude-operation-id",
        "revoke_api_key_v1_keys__key_id__delete",
        cwd=tmp_path,
    )
    assert done.returncode == 0, _failures(done)
    assert "passed" in done.stdout


def test_operator_routes_survive_fuzzing(server, tmp_path: Path) -> None:
    done = _fuzz(server.base_url, ADMIN_TOKEN, "--include-path-regex", "^/v1/admin", cwd=tmp_path)
    assert done.returncode == 0, _failures(done)
    assert "passed" in done.stdout
