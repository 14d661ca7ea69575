"""Why a rule did or did not run: the fate of each planned occurrence, and its statistics."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Public
from api.schemas.preview import OffsetInstant


class TimelineEntryPublic(Public):
    scheduled_at: datetime
    fate: str = Field(
        description="succeeded, failed, skipped, expired, cancelled, paused, quota, pending, "
        "running, not_yet_due or missed."
    )
    reason: str | None = Field(
        description="Why it did not run, or ended so: misfire, overlap, paused, quota, dst_gap "
        "(a wall time a DST gap removed, at the instant the clock jumped), grace, rule_changed, "
        "rule_deleted, user, attempts, lease_lost, kv_conflict (its runs kept reading kv "
        "values that other runs changed first) or calendar (one of its calendars excludes the "
        "date; one entry per excluded day)."
    )
    attempts: int
    action_id: int | None
    run_ids: list[int]
    note: str | None = Field(
        None, description="Why, in words: `skipped: holiday (calendar 'X')` for reason calendar."
    )


class Timeline(Public):
    rule_id: str
    start: datetime
    end: datetime
    items: list[TimelineEntryPublic]


class RuleStats(Public):
    """Configured vs achieved cadence, lateness, run time share, headroom, skips by reason."""

    model_config = {"extra": "allow", "from_attributes": True}

    rule_id: str
    stats: dict[str, Any]


class ChangePreview(Public):
    """The next occurrences before and after a proposed change, and what happens to pending ones."""

    before: list[OffsetInstant] = Field(description="Next occurrences as the rule is now.")
    after: list[OffsetInstant] = Field(description="Next occurrences with the change.")
    pending: str = Field(description="What happens to pending and missed occurrences.")
