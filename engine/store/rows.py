"""The rows the engine inserts into `rules`, `actions` and `runs`, each built by one constructor.

The layers above the store hand it typed records (`NewAction`, `NewRun`, `Planned`; events
are `engine.store.outbox.NewEvent`) and never a dict of columns, so a column's value for a
new row is decided in one place: every way of making an action or recording an attempt
writes the same columns, with the same enums.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from engine.domain.due import DueAction, Planned
from engine.domain.records import ActionStatus, RuleSpec, SkipReason
from engine.recurrence.calendars import Calendar
from engine.store.calendar_codec import rule_copy

_SPEC_FIELDS = tuple(f.name for f in fields(RuleSpec))


def rule_columns(spec: RuleSpec) -> dict[str, Any]:
    """The `rules` columns a spec sets (its enums as their strings): a new rule's, or a
    change's."""
    values = {name: getattr(spec, name) for name in _SPEC_FIELDS}
    for name in ("misfire_policy", "overlap_policy", "dst_gap", "dst_repeat"):
        values[name] = str(values[name])
    return values


def rule_row(
    spec: RuleSpec,
    tenant_id: str,
    rule_id: str,
    now: datetime,
    calendars: Sequence[Calendar] = (),
) -> dict[str, Any]:
    """The `rules` row of a new rule, version 1, created at `now` (paused since then when
    created disabled), with its copy of the `calendars` it names."""
    return rule_columns(spec) | {
        "calendar_dates": rule_copy(calendars),
        "id": rule_id,
        "tenant_id": tenant_id,
        "version": 1,
        "edited_version": 1,
        "created_at": now,
        "updated_at": now,
        "paused_at": None if spec.enabled else now,
        "deleted_at": None,
    }


@dataclass(frozen=True, slots=True)
class NewAction:
    """An action to insert: a rule's occurrence, or one made by hand, submitted or planned by
    a run (those carry a `key`, the tenant's idempotency key). With a `reason` it is written
    finished already: a trace of an occurrence that did not run."""

    tenant_id: str
    scheduled_at: datetime
    due_at: datetime
    key: str | None = None
    rule_id: str | None = None
    rule_version: int | None = None
    params: dict[str, Any] | None = None
    #: A one-off's own script (None: its rule's).
    runtime: str | None = None
    code: str | None = None
    timeout_ms: int | None = None
    memory_mb: int | None = None
    max_attempts: int = 1
    priority: int = 0
    expires_at: datetime | None = None
    trace_parent: str | None = None
    reason: SkipReason | None = None


_NEW_ACTION_FIELDS = tuple(f.name for f in fields(NewAction))
#: What a follow-up copies from the action whose run planned it.
_INHERITED = (
    "tenant_id", "rule_id", "rule_version", "max_attempts", "priority", "runtime", "code",
    "timeout_ms", "memory_mb",
)  # fmt: skip


def action_row(new: NewAction, now: datetime) -> dict[str, Any]:
    """The `actions` row of `new`, created at `now`: pending, or skipped with its reason."""
    row = {name: getattr(new, name) for name in _NEW_ACTION_FIELDS}
    skipped = new.reason is not None
    return row | {
        "status": ActionStatus.SKIPPED if skipped else ActionStatus.PENDING,
        "attempt": 0,
        "created_at": now,
        "finished_at": now if skipped else None,
    }


def planned_action(planned: Planned) -> NewAction:
    """The action of an occurrence the domain planned (or a trace of one that will not run)."""
    rule = planned.rule
    return NewAction(
        tenant_id=rule.tenant_id,
        scheduled_at=planned.scheduled_at,
        due_at=planned.due_at,
        rule_id=rule.id,
        rule_version=rule.version,
        max_attempts=rule.max_attempts,
        priority=rule.priority,
        trace_parent=planned.trace_parent,
        reason=planned.reason,
    )


def follow_up_action(
    action: DueAction, key: str, params: dict[str, Any] | None, run_at: datetime
) -> NewAction:
    """A one-off planned by a run of `action` (`ctx.schedule`): same rule and script."""
    inherited = {name: getattr(action, name) for name in _INHERITED}
    return NewAction(**inherited, key=key, params=params, scheduled_at=run_at, due_at=run_at)


@dataclass(frozen=True, slots=True)
class NewRun:
    """The record of one attempt: ended, or lost with its node (then `committed` stays false:
    nothing of it took effect)."""

    tenant_id: str
    action_id: int
    rule_id: str | None
    attempt: int
    node: str
    runtime: str
    #: The action's due time; the run's lateness is counted from it.
    planned_at: datetime
    started_at: datetime
    finished_at: datetime
    outcome: str
    duration_ms: float
    error: str | None = None
    pid: int | None = None
    result: Any = None
    error_line: int | None = None
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    cpu_ms: float | None = None
    peak_memory_bytes: int | None = None
    fuel: int | None = None
    trace_id: str | None = None
    #: The run's operator calls, as stored (a JSON list; None: it made none).
    calls: list[dict[str, Any]] | None = None
    committed: bool = False

    @property
    def lateness_ms(self) -> float:
        """From its due time to its start (never negative: a run claimed ahead waits)."""
        return max(0.0, (self.started_at - self.planned_at).total_seconds() * 1000)


_NEW_RUN_FIELDS = tuple(f.name for f in fields(NewRun))
#: The columns a `run_row` gives.
RUN_ROW_COLUMNS = (*_NEW_RUN_FIELDS, "lateness_ms")


def run_row(run: NewRun) -> dict[str, Any]:
    """The `runs` row of `run`."""
    return {name: getattr(run, name) for name in _NEW_RUN_FIELDS} | {"lateness_ms": run.lateness_ms}
