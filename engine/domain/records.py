"""What the engine hands out: frozen records whose enum values are the API/database strings."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class ActionStatus(StrEnum):
    """Where an action is in its life."""

    PENDING = "pending"
    """Waiting for its due time."""
    RUNNING = "running"
    """Claimed by a node, under a lease."""
    SUCCEEDED = "succeeded"
    """A run finished ok and its effects were committed."""
    FAILED = "failed"
    """Every attempt failed; a `run.failed` event was emitted."""
    SKIPPED = "skipped"
    """Not run on purpose (misfire, overlap, paused, quota...); `reason` says why."""
    EXPIRED = "expired"
    """Not run because it came past its grace window; an `action.expired` event was emitted."""
    CANCELLED = "cancelled"
    """Withdrawn: its rule changed or was deleted, or a user cancelled it."""


FINISHED = frozenset(
    {
        ActionStatus.SUCCEEDED,
        ActionStatus.FAILED,
        ActionStatus.SKIPPED,
        ActionStatus.EXPIRED,
        ActionStatus.CANCELLED,
    }
)


class MisfirePolicy(StrEnum):
    """What a rule does with occurrences missed while nothing could run them."""

    RUN_ALL = "run_all"
    """Catch up: run every missed occurrence."""
    RUN_LATEST = "run_latest"
    """Run once for all missed occurrences, the latest one."""
    SKIP = "skip"
    """Run none of them; go to the next future occurrence."""


class OverlapPolicy(StrEnum):
    """What an occurrence does when the rule's previous run is still going."""

    SKIP = "skip"
    """Skip it (recorded with reason `overlap`)."""
    ALLOW = "allow"
    """Run it alongside."""
    QUEUE_ONE = "queue_one"
    """Run it when the previous run ends; further ones meanwhile are skipped."""


class SkipReason(StrEnum):
    """Why an occurrence did not run; the values are `actions.reason`.

    There is no `capacity`: a full node or claim window only delays an occurrence, which is then
    skipped (misfire) or expired (grace) if it waits too long (docs/engine.md).
    """

    MISFIRE = "misfire"
    OVERLAP = "overlap"
    PAUSED = "paused"
    QUOTA = "quota"
    DST_GAP = "dst_gap"
    GRACE = "grace"
    EXPIRES_AT = "expires_at"
    """A one-off that had not started when its `expires_at` passed."""
    RULE_CHANGED = "rule_changed"
    RULE_DELETED = "rule_deleted"
    USER = "user"
    LEASE_LOST = "lease_lost"
    ATTEMPTS = "attempts"
    KV_CONFLICT = "kv_conflict"
    """Its run read kv values another run changed before it committed: it runs again (and
    fails with this reason only past `engine.runs.commit.MAX_CONFLICT_ATTEMPTS`)."""


@dataclass(frozen=True)
class RuleSpec:
    """What a tenant submits; the defaults are the product defaults."""

    name: str
    schedule: str
    code: str
    runtime: str = "python"
    timezone: str = "UTC"
    description: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    dst_gap: str = "shift"
    dst_repeat: str = "first"
    misfire_policy: MisfirePolicy = MisfirePolicy.RUN_LATEST
    misfire_grace_s: int | None = None
    overlap_policy: OverlapPolicy = OverlapPolicy.SKIP
    max_attempts: int = 3
    backoff_s: float = 10
    backoff_max_s: float = 600
    timeout_ms: int = 5000
    memory_mb: int = 128
    priority: int = 0
    jitter_s: int = 0
    start_at: datetime | None = None
    end_at: datetime | None = None
    #: Names of the tenant's calendars whose excluded dates the rule skips.
    calendars: list[str] = field(default_factory=list)
    #: key=value pairs the tenant sorts and selects rules by (`engine.domain.labels`).
    labels: dict[str, str] = field(default_factory=dict)


SPEC_FIELDS = tuple(f.name for f in fields(RuleSpec))


@dataclass(frozen=True, kw_only=True)
class Rule(RuleSpec):
    """A stored rule: the spec plus identity, version and what the engine knows of it."""

    id: str
    tenant_id: str
    version: int
    created_at: datetime
    updated_at: datetime
    next_run_at: datetime | None
    schedule_text: str
    last_outcome: str | None

    def spec(self) -> RuleSpec:
        return RuleSpec(**{name: getattr(self, name) for name in SPEC_FIELDS})


@dataclass(frozen=True)
class Action:
    """One planned execution: an occurrence of a rule, or a one-off."""

    id: int
    tenant_id: str
    rule_id: str | None
    rule_version: int | None
    key: str | None
    scheduled_at: datetime
    due_at: datetime
    status: ActionStatus
    reason: str | None
    attempt: int
    max_attempts: int
    priority: int
    created_at: datetime
    finished_at: datetime | None
    started_at: datetime | None
    expires_at: datetime | None


@dataclass(frozen=True)
class SubmittedAction:
    """A one-off as submitted: `is_new` is False when its key named an action already."""

    action: Action
    is_new: bool


@dataclass(frozen=True)
class CallRecord:
    """One outbound call of a run (`ctx.http.request`), as recorded on it: never a payload."""

    kind: str
    method: str
    host: str
    status: int | None
    duration_ms: float
    bytes_sent: int
    bytes_received: int
    error: str | None = None


@dataclass(frozen=True)
class Run:
    """One attempt at an action, exactly as it happened."""

    id: int
    action_id: int
    rule_id: str | None
    attempt: int
    node: str
    pid: int | None
    runtime: str
    planned_at: datetime
    started_at: datetime
    finished_at: datetime
    outcome: str
    result: Any
    error: str | None
    error_line: int | None
    stdout: str
    stderr: str
    output_truncated: bool
    duration_ms: float
    cpu_ms: float | None
    peak_memory_bytes: int | None
    fuel: int | None
    lateness_ms: float
    committed: bool
    #: Its OpenTelemetry trace, when traces are exported (`engine.ops.tracing`).
    trace_id: str | None
    #: Its outbound calls in order (None: it made none).
    calls: tuple[CallRecord, ...] | None = None


@dataclass(frozen=True)
class TimelineEntry:
    """What became of one expected occurrence of a rule."""

    scheduled_at: datetime
    fate: str
    reason: str | None
    attempts: int
    action_id: int | None
    run_ids: tuple[int, ...]
    #: Why, in words, when the reason alone does not say it (a calendar's name).
    note: str | None = None


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing; pass `next_cursor` back to get the next (None: the last page)."""

    items: list[T]
    next_cursor: str | None
