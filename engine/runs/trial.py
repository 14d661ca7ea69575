"""A test run: a script run once in the real sandbox against the tenant's data, saving nothing.

The rule editor's "Test run" shows what a script would do before anyone saves it: its result,
output, events and the kv changes it would make. Reads see the tenant's real data; writes stay
in the run's buffer and are returned, never applied; no action or run is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.deps import Deps
from engine.domain.records import RuleSpec
from engine.domain.validation import check_fields, check_quotas
from engine.runs.runner import MIB, RunEnv, host_for
from sandbox import Limits, Outcome, ScriptContext


@dataclass(frozen=True)
class TrialResult:
    outcome: Outcome
    #: key -> the value the run would write, or None where it would delete the key.
    kv_changes: dict[str, Any]


async def test_run(
    deps: Deps,
    tenant_id: str,
    *,
    code: str,
    runtime: str,
    params: dict[str, Any],
    timeout_ms: int,
    memory_mb: int,
) -> TrialResult:
    """Run `code` once as the tenant's script would run; raises InvalidRule/QuotaExceeded for
    bad settings, and returns every script outcome (rejected included) as data."""
    spec = RuleSpec(
        name="test run",
        schedule="",
        code=code,
        runtime=runtime,
        params=params,
        timeout_ms=timeout_ms,
        memory_mb=memory_mb,
    )
    check_fields(spec)
    profile = await deps.profile(tenant_id)
    check_quotas(spec, profile.quotas)
    now = deps.clock.now()
    context = ScriptContext(
        tenant_id=tenant_id,
        rule_id=None,
        rule_name=None,
        scheduled_at=now,
        attempt=1,
        params=params,
        occurrence_id=f"test-run:{now.isoformat()}",
    )
    limits = Limits(timeout_s=timeout_ms / 1000, memory_bytes=memory_mb * MIB)
    env = RunEnv(
        deps.sandbox,
        deps.db,
        deps.clock,
        deps.config.node_name,
        deps.secrets,
        deps.config.http,
        deps.capabilities,
    )
    host = host_for(env, context, limits, None)  # follow-ups checked, never saved
    outcome = await deps.sandbox.runtime(runtime).run(code, context, limits, host)
    redactor = host.secrets.redactor()
    return TrialResult(redactor.outcome(outcome), redactor.json(host.preview()))
