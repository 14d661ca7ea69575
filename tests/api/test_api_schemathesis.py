"""Schemathesis against the live server's /openapi.json: no 5xx, every answer matches the schema.

Tenant routes other than /v1/rules (those are in test_api_schemathesis_rules.py) with a fresh
tenant's admin key, its rate limit raised so the fuzzer is not merely throttled; operator
routes with the operator token. What is left out and why: `support.fuzzing`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fuzzing import FUZZ_TIMEOUT_S, REVOKE_OWN_KEY, failures, fuzz
from support.operator import ADMIN_TOKEN

pytestmark = pytest.mark.timeout(FUZZ_TIMEOUT_S + 30)


def test_tenant_routes_survive_fuzzing(server, new_tenant, tmp_path: Path) -> None:
    t = new_tenant(quotas={"requests_per_minute": 1_000_000})
    scope = ("--exclude-path-regex", "^/v1/(admin|rules)", *REVOKE_OWN_KEY)
    done = fuzz(server, t.keys["admin"], *scope, cwd=tmp_path)
    assert done.returncode == 0, failures(done)
    assert "passed" in done.stdout


def test_operator_routes_survive_fuzzing(server, tmp_path: Path) -> None:
    done = fuzz(server, ADMIN_TOKEN, "--include-path-regex", "^/v1/admin", cwd=tmp_path)
    assert done.returncode == 0, failures(done)
    assert "passed" in done.stdout
