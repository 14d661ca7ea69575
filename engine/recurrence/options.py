"""Kinds of schedule, DST choices and per-tenant limits: the vocabulary shared with the API."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ScheduleKind(StrEnum):
    """How the schedule text is written; the values are the API/database strings."""

    RRULE = "rrule"
    """RFC 5545 recurrence (bare `FREQ=...`, a DTSTART/RRULE/EXDATE/RDATE block, or English)."""
    CRON = "cron"
    """Five-field cron with Vixie semantics."""
    INTERVAL = "interval"
    """A fixed duration (`every 15m`, `PT15M`) anchored at a start instant."""
    ONCE = "once"
    """A single ISO 8601 instant."""


class DstGap(StrEnum):
    """What an RRULE occurrence whose local time does not exist (spring forward) does."""

    SHIFT = "shift"
    """Read the time with the offset before the gap (RFC 5545 §3.3.5): 02:30 runs at 03:30."""
    SKIP = "skip"
    """Drop the occurrence (RFC 5545 §3.3.10 reading)."""


class DstRepeat(StrEnum):
    """What an RRULE occurrence whose local time happens twice (fall back) does."""

    FIRST = "first"
    """Run once, at the first of the two instants."""
    BOTH = "both"
    """Run at both instants."""


@dataclass(frozen=True)
class ScheduleLimits:
    """Per-tenant guards applied when a schedule is parsed.

    `horizon_years`: an RRULE (or cron/interval) without COUNT or UNTIL ends this many years
    after its start (the visible UNTIL cap). `min_interval_s`: the least time allowed between two
    occurrences. `allow_secondly`: whether FREQ=SECONDLY is accepted at all.
    """

    horizon_years: int = 10
    min_interval_s: int = 60
    allow_secondly: bool = False
