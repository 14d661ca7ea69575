"""Calendars: named sets of dates a tenant's rules skip (`NewRule.calendars` names them)."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import Field

from cadenza_client.models.base import Record


class RuleRef(Record):
    """A rule that uses a calendar."""

    id: str
    name: str


class Calendar(Record):
    """A stored calendar and the rules that use it; `version` is bumped on every change."""

    name: str
    description: str
    excluded: tuple[date, ...] = Field(description="Dates no rule using it runs on.")
    included: tuple[date, ...] = Field(
        description="When not empty, its rules run only on these dates (minus excluded ones)."
    )
    version: int
    created_at: datetime
    updated_at: datetime
    rules: tuple[RuleRef, ...]


class SkippedOccurrence(Record):
    """An occurrence of a preview that a calendar removed."""

    at: datetime
    calendar: str
    note: str
