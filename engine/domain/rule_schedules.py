"""Rules' schedules through the recurrence package (it caches parses: calling per run is cheap)."""

from __future__ import annotations

from datetime import datetime

from engine.recurrence import DstGap, DstRepeat, Schedule, ScheduleLimits, parse_schedule


def compile_schedule(
    text: str,
    timezone: str,
    anchor: datetime,
    dst_gap: str,
    dst_repeat: str,
    limits: ScheduleLimits,
    *,
    since: datetime | None = None,
) -> Schedule:
    """The parsed schedule (InvalidSchedule when `text` is not one under `limits`).

    `anchor` starts a schedule written without a start; `since` (the rule's creation) is what
    the horizon of an open-ended schedule counts from, so it is the same at every evaluation.
    """
    return parse_schedule(
        text,
        timezone,
        anchor=anchor,
        since=since,
        dst_gap=DstGap(dst_gap),
        dst_repeat=DstRepeat(dst_repeat),
        limits=limits,
    )


def evaluation_limits(horizon_years: int) -> ScheduleLimits:
    """Limits for evaluating a schedule validated when it was saved: only the horizon matters
    then (a tenant whose quota was lowered keeps the rules it already has)."""
    return ScheduleLimits(horizon_years=horizon_years, min_interval_s=1, allow_secondly=True)
