"""Running one claimed action in the sandbox and turning what happened into a `Completion`.

A failing script is data: every outcome becomes a run row; a failure is retried with backoff
(never shifting the rule's timeline) until its attempts are spent, then the action fails and a
`run.failed` event is emitted.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from engine.capabilities.desk import CapabilityDesk
from engine.clock import Clock
from engine.config import HttpPolicy
from engine.domain.due import DueAction
from engine.domain.occurrences import occurrence_id
from engine.domain.policies import retry_delay
from engine.domain.records import ActionStatus, SkipReason
from engine.ops import tracing
from engine.ops.logs import action_ids
from engine.runs.capability_calls import CapabilityCalls
from engine.runs.commit import Completion
from engine.runs.deadline import RunDeadline
from engine.runs.follow_ups import FollowUps
from engine.runs.host import BufferedHost
from engine.runs.outbound_http import OutboundHttp
from engine.runs.script_secrets import ScriptSecrets
from engine.runs.unrecorded import UnrecordedWrites
from engine.store.rows import NewRun
from sandbox import (
    Limits,
    Outcome,
    OutcomeStatus,
    Sandbox,
    SandboxError,
    ScriptContext,
    clean_outcome,
)
from tenants.quotas import TenantProfile
from tenants.secret_box import SecretBox

log = logging.getLogger("cadenza.engine")
MIB = 1024 * 1024
#: Defaults for a one-off action that carries its own script.
ONE_OFF_BACKOFF_S = 10.0
ONE_OFF_BACKOFF_MAX_S = 600.0


@dataclass(frozen=True)
class Claimed:
    """An action this node claimed: as read before the claim, and the claim's version."""

    action: DueAction
    version: int
    claimed_at: datetime

    @property
    def attempt(self) -> int:
        return self.action.attempt + 1


def limits_for(action: DueAction, profile: TenantProfile) -> Limits:
    """The rule's (or one-off's) limits, capped by the tenant's quota."""
    timeout_ms = min(action.timeout_ms_or_rule, profile.quotas.max_timeout_ms)
    memory_mb = min(action.memory_mb_or_rule, profile.quotas.max_memory_mb)
    return _limits(timeout_ms, memory_mb)


@functools.lru_cache(maxsize=256)
def _limits(timeout_ms: int, memory_mb: int) -> Limits:
    """Limits are immutable and few distinct ones exist: build each once (validation is slow)."""
    return Limits(timeout_s=timeout_ms / 1000, memory_bytes=memory_mb * MIB)


def context_for(claimed: Claimed) -> ScriptContext:
    a = claimed.action
    return ScriptContext(
        tenant_id=a.tenant_id,
        rule_id=a.rule_id,
        rule_name=a.rule.name if a.rule is not None else None,
        scheduled_at=a.scheduled_at,
        attempt=claimed.attempt,
        params=a.merged_params,
        occurrence_id=occurrence_id(a.rule_id, a.id, a.scheduled_at),
    )


@dataclass(frozen=True)
class RunEnv:
    """What running needs besides the action."""

    sandbox: Sandbox
    db: AsyncEngine
    clock: Clock
    node: str
    #: Opens the tenants' script secrets (None: scripts on this node can read none).
    secrets: SecretBox | None = None
    #: The operator's bounds on scripts' HTTP requests.
    http: HttpPolicy = field(default_factory=HttpPolicy)
    #: The capabilities scripts may call (None: none on this node).
    capabilities: CapabilityDesk | None = None


async def execute(
    env: RunEnv, claimed: Claimed, profile: TenantProfile, unrecorded: UnrecordedWrites
) -> Completion:
    """Run the action once; never raises for anything the script does. Its kv reads see the
    tenant's `unrecorded` writes (runs that ended on this node, not recorded yet)."""
    action = claimed.action
    runtime, code = action.script
    limits = limits_for(action, profile)
    context = context_for(claimed)
    host = host_for(env, context, limits, unrecorded)
    sandbox, clock, node = env.sandbox, env.clock, env.node
    started_at = clock.now()
    try:
        # clean text already: every outcome of a runtime is built by `sandbox.outcomes.Run`
        outcome = await sandbox.runtime(runtime).run(code, context, limits, host)
    except SandboxError as exc:
        log.error("sandbox failed on action %s: %s", action.id, exc, extra=action_ids(action))
        failure = Outcome(status=OutcomeStatus.CRASHED, error=f"sandbox failure: {exc}")
        outcome = clean_outcome(failure)
    finished_at = clock.now()
    outcome = host.secrets.redactor().outcome(outcome)
    return _completion(claimed, runtime, node, outcome, host, started_at, finished_at)


def host_for(
    env: RunEnv, context: ScriptContext, limits: Limits, unrecorded: UnrecordedWrites | None
) -> BufferedHost:
    """The host API of one run: its tenant's data, secrets, HTTP, capabilities, follow-ups."""
    tenant_id, occurrence = context.tenant_id, context.occurrence_id
    secrets = ScriptSecrets(env.db, env.secrets, tenant_id)
    deadline = RunDeadline(limits.timeout_s)
    http = OutboundHttp(env.db, tenant_id, env.http, secrets, occurrence, deadline)
    desk = env.capabilities
    calls = None if desk is None else CapabilityCalls(env.db, desk, context, deadline, env.clock)
    follow_ups = FollowUps(occurrence, env.clock.now())
    return BufferedHost(
        env.db, tenant_id, unrecorded, limits.timeout_s, secrets, http, follow_ups, calls, deadline
    )


def _completion(
    claimed: Claimed,
    runtime: str,
    node: str,
    outcome: Outcome,
    host: BufferedHost,
    started_at: datetime,
    finished_at: datetime,
) -> Completion:
    action = claimed.action
    ok = outcome.status is OutcomeStatus.OK
    status, reason, due_at = settle(action, claimed.attempt, ok, finished_at)
    events = [(e.type, e.payload, "script") for e in outcome.events] if ok else []
    if status == ActionStatus.FAILED:
        failure = _failure(action, claimed.attempt, str(outcome.status), outcome.error)
        events.append(("run.failed", failure, "engine"))
    times = (claimed.claimed_at, started_at, finished_at)
    trace = tracing.run_spans(action, claimed.attempt, runtime, str(outcome.status), times)
    trace_id = trace.trace_id if trace is not None else None
    run = _new_run(claimed, runtime, node, outcome, (started_at, finished_at), trace_id, host)
    if not ok:
        _log_failure(claimed, outcome.status, status, trace_id)
    completion = Completion(
        action=action,
        claim_version=claimed.version,
        status=status,
        reason=reason,
        due_at=due_at,
        run=run,
        kv=host.secrets.redactor().kv(host.changes()) if ok else None,
        events=events,
        cpu_ms=int((outcome.cpu_s or 0) * 1000),
        trace=trace,
        follow_ups=tuple(host.follow_ups.planned) if ok and host.follow_ups else (),
    )
    if host.outage is not None and not ok:
        return completion.run_again(f"the database was unreachable during this run ({host.outage})")
    return completion


def _log_failure(
    claimed: Claimed, outcome: OutcomeStatus, status: str, trace_id: str | None
) -> None:
    """One line per failed run, with its ids and outcome only: never the error text or
    output, which the script controls (they are in the run, for its tenant)."""
    ids = action_ids(claimed.action, claimed.attempt) | {"trace_id": trace_id}
    log.info(
        "run of action %s attempt %s ended %s; the action is now %s",
        claimed.action.id,
        claimed.attempt,
        outcome,
        status,
        extra=ids,
    )


def settle(
    action: DueAction, attempt: int, ok: bool, finished_at: datetime
) -> tuple[ActionStatus, SkipReason | None, datetime]:
    """(status, reason, due_at) of an action after an attempt: succeeded; pending again after
    a backoff while attempts are left; else failed."""
    if ok:
        return ActionStatus.SUCCEEDED, None, action.due_at
    if attempt < action.max_attempts:
        rule = action.rule
        backoff_s = (rule.backoff_s if rule else None) or ONE_OFF_BACKOFF_S
        cap_s = (rule.backoff_max_s if rule else None) or ONE_OFF_BACKOFF_MAX_S
        return ActionStatus.PENDING, None, finished_at + retry_delay(attempt, backoff_s, cap_s)
    return ActionStatus.FAILED, SkipReason.ATTEMPTS, action.due_at


def unstorable(completion: Completion, detail: str) -> Completion:
    """In place of a completion whose record the database refused: the attempt as an engine
    error (outcome crashed, none of its output or effects), retried like a failed run."""
    run = replace(
        completion.run,
        outcome=str(OutcomeStatus.CRASHED),
        result=None,
        stdout="",
        stderr="",
        output_truncated=False,
        error_line=None,
        error=f"engine error: this run's record could not be stored ({detail}); "
        "its output and effects were discarded",
    )
    action, attempt = completion.action, run.attempt
    status, reason, due_at = settle(action, attempt, False, run.finished_at)
    failed = [("run.failed", _failure(action, attempt, run.outcome, run.error), "engine")]
    return replace(
        completion,
        status=status,
        reason=reason,
        due_at=due_at,
        run=run,
        kv=None,
        events=failed if status == ActionStatus.FAILED else [],
        discards_effects=True,
    )


def _failure(action: DueAction, attempt: int, outcome: str, error: str | None) -> dict[str, Any]:
    return {
        "action_id": action.id,
        "rule_id": action.rule_id,
        "scheduled_at": action.scheduled_at.isoformat(),
        "attempts": attempt,
        "outcome": outcome,
        "error": error,
    }


def _new_run(
    claimed: Claimed,
    runtime: str,
    node: str,
    outcome: Outcome,
    times: tuple[datetime, datetime],
    trace_id: str | None,
    host: BufferedHost,
) -> NewRun:
    a = claimed.action
    started_at, finished_at = times
    return NewRun(
        tenant_id=a.tenant_id,
        action_id=a.id,
        rule_id=a.rule_id,
        attempt=claimed.attempt,
        node=node,
        runtime=runtime,
        planned_at=a.due_at,
        started_at=started_at,
        finished_at=finished_at,
        outcome=str(outcome.status),
        duration_ms=outcome.duration_s * 1000,
        error=outcome.error,
        pid=outcome.pid,
        result=outcome.result,
        error_line=outcome.error_line,
        stdout=outcome.stdout,
        stderr=outcome.stderr,
        output_truncated=outcome.output_truncated,
        cpu_ms=None if outcome.cpu_s is None else outcome.cpu_s * 1000,
        peak_memory_bytes=outcome.peak_memory_bytes,
        fuel=outcome.fuel,
        trace_id=trace_id,
        calls=host.call_records(),
    )
