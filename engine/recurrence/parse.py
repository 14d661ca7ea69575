"""`parse_schedule`: text of any kind -> one validated, immutable `Schedule`."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from engine.recurrence.cron import build_cron, looks_like_cron
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.interval import Once, build_interval, parse_duration, parse_instant
from engine.recurrence.natural import english_to_rrule
from engine.recurrence.options import DstGap, DstRepeat, ScheduleKind, ScheduleLimits
from engine.recurrence.recurrence import _add_years, build_recurrence
from engine.recurrence.rfc5545 import looks_like_rfc5545, parse_block
from engine.recurrence.schedule import Schedule
from engine.recurrence.zones import load_zone, to_wall

#: Longest schedule text accepted (long EXDATE lists fit; 100 KB of garbage does not).
MAX_TEXT_CHARS = 16_384


def parse_schedule(
    text: str,
    timezone: str = "UTC",
    *,
    anchor: datetime | None = None,
    dst_gap: DstGap = DstGap.SHIFT,
    dst_repeat: DstRepeat = DstRepeat.FIRST,
    limits: ScheduleLimits = ScheduleLimits(),  # noqa: B008 - frozen, so safe as a default
) -> Schedule:
    """Parse and validate `text` in `timezone`; InvalidSchedule (one clear line) when bad.

    `anchor` is the DTSTART of an RRULE without one, the start of an interval and of a cron
    schedule's horizon; by default the current time truncated to the minute. Results are cached,
    so the engine may call this for every run.
    """
    if anchor is None:
        anchor = datetime.now(UTC).replace(second=0, microsecond=0)
    elif anchor.tzinfo is None or anchor.utcoffset() is None:
        raise InvalidSchedule(str(anchor), "anchor has no time zone", hint="pass an aware datetime")
    return _parse(text, timezone, anchor, dst_gap, dst_repeat, limits)


@lru_cache(maxsize=4096)
def _parse(
    text: str,
    timezone: str,
    anchor: datetime,
    dst_gap: DstGap,
    dst_repeat: DstRepeat,
    limits: ScheduleLimits,
) -> Schedule:
    _check_text(text)
    zone = load_zone(timezone)
    if looks_like_rfc5545(text):
        return _recurrence(text, text, timezone, anchor, (dst_gap, dst_repeat), limits)
    at = parse_instant(text, zone)
    if at is not None:
        return Schedule(ScheduleKind.ONCE, text, timezone, Once(at))
    start = to_wall(anchor, zone).replace(second=0, microsecond=0)
    end = _add_years(start, limits.horizon_years)
    step = parse_duration(text)
    if step is not None:
        horizon_end = end.replace(tzinfo=zone)
        source = build_interval(text, step, anchor, horizon_end, zone, limits.min_interval_s)
        return Schedule(ScheduleKind.INTERVAL, text, timezone, source)
    if looks_like_cron(text):
        cron = build_cron(text, timezone, zone, (start, end), limits.min_interval_s)
        return Schedule(ScheduleKind.CRON, text, timezone, cron)
    rule = english_to_rrule(text)
    return _recurrence(text, rule, timezone, anchor, (dst_gap, dst_repeat), limits)


def _recurrence(
    text: str,
    rule_text: str,
    timezone: str,
    anchor: datetime,
    dst: tuple[DstGap, DstRepeat],
    limits: ScheduleLimits,
) -> Schedule:
    try:
        block = parse_block(rule_text)
        recurrence = build_recurrence(rule_text, block, timezone, anchor, dst, limits)
    except InvalidSchedule as exc:
        if rule_text == text:
            raise
        raise InvalidSchedule(text, f"{exc.reason} (from {rule_text})", hint=exc.hint) from exc
    except (ValueError, IndexError, OverflowError) as exc:  # dateutil/datetime at their limits
        reason = f"the rule cannot be evaluated: {exc}"
        raise InvalidSchedule(
            text, reason, hint="check DTSTART, UNTIL and the BYxxx values"
        ) from exc
    return Schedule(ScheduleKind.RRULE, text, recurrence.zone_name, recurrence)


def _check_text(text: str) -> None:
    if not isinstance(text, str) or not text.strip():
        raise InvalidSchedule(
            str(text),
            "the schedule is empty",
            hint="write e.g. FREQ=DAILY;BYHOUR=9, '30 9 * * 1-5' or 'every 15m'",
        )
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidSchedule(
            text[:80],
            f"the schedule is {len(text)} characters; at most {MAX_TEXT_CHARS}",
            hint="shorten EXDATE/RDATE lists or split the rule",
        )
    if "\x00" in text:
        raise InvalidSchedule(
            text[:80], "the schedule contains a NUL character", position=text.index("\x00")
        )
