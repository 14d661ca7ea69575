"""Schemathesis against the live server's /openapi.json, for the rule routes (rules, preview,
validation, test runs): no 5xx, every answer matches the schema. A file of its own so that it
runs beside the other tenant routes' run (test_api_schemathesis.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fuzzing import FUZZ_TIMEOUT_S, failures, fuzz

pytestmark = pytest.mark.timeout(FUZZ_TIMEOUT_S + 30)


def test_rule_routes_survive_fuzzing(server, new_tenant, tmp_path: Path) -> None:
    t = new_tenant(quotas={"requests_per_minute": 1_000_000})
    done = fuzz(
        server,
        t.keys["admin"],
        "--include-path-regex",
        "^/v1/rules",
        cwd=tmp_path,
        coverage_on="sqlite",  # the other route groups' coverage runs on PostgreSQL
    )
    assert done.returncode == 0, failures(done)
    assert "passed" in done.stdout
