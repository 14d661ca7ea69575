"""The loop's currency: a rule as the loop saw it, and a due action carrying that rule.

The store builds these from its rows (`engine.store.snapshots`); above it nothing reads a
column by name. A one-off action has no rule; an action of a deleted rule still carries the rule's
snapshot (with `deleted_at` set), so the policies can cancel it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.domain.records import ActionStatus, MisfirePolicy, OverlapPolicy, SkipReason
from engine.recurrence.calendars import Calendar

#: A one-off action without its own limits runs with these.
DEFAULT_TIMEOUT_MS = 5000
DEFAULT_MEMORY_MB = 128


@dataclass(frozen=True, slots=True)
class RuleSnapshot:
    """What the engine needs of a rule to plan and run its occurrences."""

    id: str
    tenant_id: str
    name: str
    schedule: str
    timezone: str
    dst_gap: str
    dst_repeat: str
    runtime: str
    code: str
    params: dict[str, Any] | None
    enabled: bool
    version: int
    misfire_policy: MisfirePolicy
    misfire_grace_s: int | None
    overlap_policy: OverlapPolicy
    max_attempts: int
    backoff_s: float
    backoff_max_s: float
    timeout_ms: int
    memory_mb: int
    priority: int
    jitter_s: int
    start_at: datetime | None
    end_at: datetime | None
    created_at: datetime
    deleted_at: datetime | None
    #: The calendars it honours, as they were when this version was written.
    calendars: tuple[Calendar, ...] = ()

    @property
    def anchor(self) -> datetime:
        """What an anchored schedule (`every 15m`) counts from: start_at, else creation."""
        return self.start_at or self.created_at


@dataclass(frozen=True, slots=True)
class DueAction:
    """A pending action as read before its claim, with its rule (None for a one-off)."""

    id: int
    tenant_id: str
    rule_id: str | None
    rule_version: int | None
    key: str | None
    runtime: str | None
    code: str | None
    params: dict[str, Any] | None
    timeout_ms: int | None
    memory_mb: int | None
    scheduled_at: datetime
    due_at: datetime
    status: ActionStatus
    attempt: int
    max_attempts: int
    version: int
    priority: int
    claimed_at: datetime | None
    trace_parent: str | None
    rule: RuleSnapshot | None
    #: Not started by then, a one-off is expired rather than run late.
    expires_at: datetime | None = None

    @property
    def is_chain(self) -> bool:
        """A rule's own occurrence (not a trigger, backfill or one-off), which plans the next."""
        return self.rule_id is not None and self.key is None

    @property
    def was_claimed(self) -> bool:
        """Whether it was ever claimed: its first claim planned the next occurrence, and it is
        no longer subject to misfire (a retry, a run given back or taken back)."""
        return self.claimed_at is not None

    @property
    def script(self) -> tuple[str, str]:
        """(runtime, code) it runs: its own (a one-off's), else its rule's."""
        rule = self.rule
        runtime = self.runtime or (rule.runtime if rule else None) or "python"
        code = self.code if self.code is not None else (rule.code if rule else "")
        return runtime, code

    @property
    def timeout_ms_or_rule(self) -> int:
        if self.timeout_ms is not None:
            return self.timeout_ms
        return (self.rule.timeout_ms if self.rule else None) or DEFAULT_TIMEOUT_MS

    @property
    def memory_mb_or_rule(self) -> int:
        if self.memory_mb is not None:
            return self.memory_mb
        return (self.rule.memory_mb if self.rule else None) or DEFAULT_MEMORY_MB

    @property
    def merged_params(self) -> dict[str, Any]:
        """The rule's parameters overridden by the action's own."""
        return dict((self.rule.params if self.rule else None) or {}) | dict(self.params or {})


@dataclass(frozen=True, slots=True)
class Planned:
    """An occurrence of a rule the domain planned: pending, or (with a reason) a skipped trace
    of one that will not run. The store turns it into an `actions` row."""

    rule: RuleSnapshot
    scheduled_at: datetime
    due_at: datetime
    reason: SkipReason | None = None
    trace_parent: str | None = None
