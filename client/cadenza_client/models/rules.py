"""Rules: `NewRule` to create one, `RuleChanges` to change some fields, `Rule` as stored.

`Rule` extends `NewRule`, so a rule read from one tenant is a `NewRule` for another
(`rule.as_new()`): that is how export and import work.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import AwareDatetime, ConfigDict, Field

from cadenza_client.models.base import Input, Record
from cadenza_client.models.calendars import SkippedOccurrence
from cadenza_client.models.enums import (
    BulkOperation,
    DstGap,
    DstRepeat,
    MisfirePolicy,
    OverlapPolicy,
    Runtime,
)


class NewRule(Input):
    """A rule to create. Defaults are the server's; only the fields given are sent."""

    name: str
    schedule: str = Field(description="RRULE, cron, `every 15m`, an ISO instant or English.")
    code: str = Field(description="The script (`def main(ctx): ...` for python).")
    runtime: Runtime = Runtime.PYTHON
    timezone: str | None = Field(
        None, description="The IANA zone the schedule is read in; None: the tenant's default."
    )
    description: str = ""
    params: dict[str, Any] = Field(default_factory=dict, description="Handed to the script.")
    enabled: bool = Field(True, description="False: saved but paused.")
    dst_gap: DstGap = DstGap.SHIFT
    dst_repeat: DstRepeat = DstRepeat.FIRST
    misfire_policy: MisfirePolicy = MisfirePolicy.RUN_LATEST
    misfire_grace_s: int | None = Field(None, description="How late a run may start.")
    overlap_policy: OverlapPolicy = OverlapPolicy.SKIP
    max_attempts: int = 3
    backoff_s: float = 10
    backoff_max_s: float = 600
    timeout_ms: int = 5000
    memory_mb: int = 128
    priority: int = 0
    jitter_s: int = 0
    start_at: AwareDatetime | None = None
    end_at: AwareDatetime | None = None
    calendars: list[str] = Field(
        default_factory=list, description="Names of calendars whose excluded dates it skips."
    )
    labels: dict[str, str] = Field(
        default_factory=dict, description="key: value pairs to select the rule by."
    )


class RuleChanges(Input):
    """Fields to change on a rule; only the fields given are sent (None clears where allowed)."""

    name: str | None = None
    schedule: str | None = None
    code: str | None = None
    runtime: Runtime | None = None
    timezone: str | None = None
    description: str | None = None
    params: dict[str, Any] | None = None
    enabled: bool | None = None
    dst_gap: DstGap | None = None
    dst_repeat: DstRepeat | None = None
    misfire_policy: MisfirePolicy | None = None
    misfire_grace_s: int | None = None
    overlap_policy: OverlapPolicy | None = None
    max_attempts: int | None = None
    backoff_s: float | None = None
    backoff_max_s: float | None = None
    timeout_ms: int | None = None
    memory_mb: int | None = None
    priority: int | None = None
    jitter_s: int | None = None
    start_at: AwareDatetime | None = None
    end_at: AwareDatetime | None = None
    calendars: list[str] | None = None
    labels: dict[str, str] | None = None


class Rule(NewRule):
    """A stored rule. `version` is bumped on every change: update and delete send it back."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    timezone: str
    version: int
    created_at: datetime
    updated_at: datetime
    next_run_at: datetime | None = Field(description="None when paused or finished.")
    schedule_text: str = Field(description="The schedule in plain English.")
    last_outcome: str | None

    def as_new(self) -> NewRule:
        """This rule's definition, every field given, ready to create elsewhere."""
        return NewRule(**{name: getattr(self, name) for name in NewRule.model_fields})


class BulkResult(Record):
    """The rules a bulk call changed, or that its dry run would change."""

    operation: BulkOperation
    dry_run: bool
    count: int
    ids: tuple[str, ...] = Field(description="Their ids in id order (the first 1000).")


class Note(Record):
    """An occurrence DST moved or doubled."""

    at: datetime
    note: str


class Preview(Record):
    """What a schedule does: its text, next occurrences (in its zone), end and warnings."""

    text: str
    complete: bool = Field(description="False when part of the text is quoted verbatim.")
    occurrences: tuple[datetime, ...]
    finite: bool
    ends: datetime | None
    ends_by: str | None = Field(description="count, until or cap.")
    warnings: tuple[str, ...]
    notes: tuple[Note, ...]
    skipped: tuple[SkippedOccurrence, ...] = Field(
        default=(), description="Occurrences its calendars removed, up to the last listed one."
    )


class ChangePreview(Record):
    """The next occurrences before and after a proposed change, and what happens to pending."""

    before: tuple[datetime, ...]
    after: tuple[datetime, ...]
    pending: str


class TimelineEntry(Record):
    """One planned occurrence and its fate (succeeded, failed, skipped, paused, missed...)."""

    scheduled_at: datetime
    fate: str
    reason: str | None
    attempts: int
    action_id: int | None
    run_ids: tuple[int, ...]
    note: str | None = Field(None, description="`skipped: holiday (calendar 'X')`, say.")


class Timeline(Record):
    """Every planned occurrence of a rule in [start, end)."""

    rule_id: str
    start: datetime
    end: datetime
    items: tuple[TimelineEntry, ...]


class RuleStats(Record):
    """How well a rule keeps time: cadence, lateness, headroom, skips (see docs/api.md)."""

    rule_id: str
    stats: dict[str, Any]
