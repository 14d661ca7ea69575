"""`parse_schedule`: text of any kind -> one validated, immutable `Schedule`."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache

from engine.recurrence.cadence import check_gap, recurrence_gap_s
from engine.recurrence.cron import build_cron, looks_like_cron
from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.horizon import Horizon
from engine.recurrence.interval import build_interval, parse_duration
from engine.recurrence.natural import read_english
from engine.recurrence.once import build_once, parse_instant
from engine.recurrence.options import DstGap, DstRepeat, ScheduleKind, ScheduleLimits
from engine.recurrence.phrase import Elapsed, OnceAt, reading_phases
from engine.recurrence.recurrence import build_recurrence
from engine.recurrence.rfc5545 import looks_like_rfc5545, parse_block
from engine.recurrence.schedule import Schedule
from engine.recurrence.zones import GapMode, WallMapping, load_zone

#: Longest schedule text accepted (long EXDATE lists fit; 100 KB of garbage does not).
MAX_TEXT_CHARS = 16_384


def parse_schedule(
    text: str,
    timezone: str = "UTC",
    *,
    anchor: datetime | None = None,
    since: datetime | None = None,
    dst_gap: DstGap = DstGap.SHIFT,
    dst_repeat: DstRepeat = DstRepeat.FIRST,
    limits: ScheduleLimits = ScheduleLimits(),  # noqa: B008 - frozen, so safe as a default
) -> Schedule:
    """Parse and validate `text` in `timezone`; InvalidSchedule (one clear line) when bad.

    `anchor` is the DTSTART of an RRULE without one, the start of an interval and of a cron
    schedule; by default the current time truncated to the minute. `since` is what the horizon
    of an open-ended schedule counts from (the rule's creation or last change; by default the
    anchor). Results are cached, so the engine may call this for every run.
    """
    if anchor is None:
        anchor = datetime.now(UTC).replace(second=0, microsecond=0)
    for name, value in (("anchor", anchor), ("since", since)):
        if value is not None and (value.tzinfo is None or value.utcoffset() is None):
            raise InvalidSchedule(
                str(value), f"{name} has no time zone", hint="pass an aware datetime"
            )
    horizon = Horizon(anchor, since or anchor, limits.horizon_years)
    return _parse(text, timezone, horizon, dst_gap, dst_repeat, limits)


@lru_cache(maxsize=4096)
def _parse(
    text: str,
    timezone: str,
    horizon: Horizon,
    dst_gap: DstGap,
    dst_repeat: DstRepeat,
    limits: ScheduleLimits,
) -> Schedule:
    _check_text(text)
    load_zone(timezone)
    dst = (dst_gap, dst_repeat)
    if looks_like_rfc5545(text):
        return _recurrence(text, text, timezone, horizon, dst, limits)
    at = parse_instant(text)
    if at is not None:
        return _once(text, OnceAt(at, None), timezone, dst)
    step = parse_duration(text)
    if step is not None:
        return _interval(text, Elapsed(step, None, None), timezone, horizon, limits)
    if looks_like_cron(text):
        cron = build_cron(text, timezone, horizon, limits)
        return Schedule(ScheduleKind.CRON, text, timezone, cron)
    reading = read_english(text)
    if isinstance(reading, OnceAt):
        return _once(text, reading, timezone, dst)
    if isinstance(reading, Elapsed):
        return _interval(text, reading, timezone, horizon, limits)
    zone_name = reading.zone or timezone
    block = reading.block(zone_name)
    schedule = _phase_free(text, block, zone_name, horizon, dst, limits)
    return schedule or _recurrence(text, block, zone_name, horizon, dst, limits)


def _phase_free(
    text: str,
    block: str,
    zone_name: str,
    horizon: Horizon,
    dst: tuple[DstGap, DstRepeat],
    limits: ScheduleLimits,
) -> Schedule | None:
    """English read without a start may not depend on when it is read: where an INTERVAL's
    phase decides whether the filters are ever met ('every 3 months in March'), the rule is
    tried at every phase and refused unless it occurs at all of them. Returns the schedule
    read at the anchor when it was built on the way, else None."""
    phases = reading_phases(block, horizon.anchor)
    if not phases:
        return None
    outcomes: list[Schedule | InvalidSchedule] = []
    for anchor in [horizon.anchor, *phases]:
        try:
            outcomes.append(
                _recurrence(text, block, zone_name, replace(horizon, anchor=anchor), dst, limits)
            )
        except InvalidSchedule as exc:
            outcomes.append(exc)
    if any(isinstance(o, InvalidSchedule) for o in outcomes) and not all(
        isinstance(o, InvalidSchedule) for o in outcomes
    ):
        raise InvalidSchedule(
            text,
            "whether it ever runs depends on when it starts (the INTERVAL's phase)",
            hint="add 'starting <date>', or drop the interval ('every year in March')",
        )
    first = outcomes[0]
    if isinstance(first, InvalidSchedule):
        raise first
    return first


def _once(text: str, reading: OnceAt, timezone: str, dst: tuple[DstGap, DstRepeat]) -> Schedule:
    once = build_once(text, reading.wall, reading.zone or timezone, dst)
    return Schedule(ScheduleKind.ONCE, text, once.zone_name, once)


def _interval(
    text: str, reading: Elapsed, timezone: str, horizon: Horizon, limits: ScheduleLimits
) -> Schedule:
    zone_name = reading.zone or timezone
    start = None
    if reading.start is not None:
        mapping = WallMapping(load_zone(zone_name), GapMode.SHIFT, repeat_both=False)
        start = mapping.instants(reading.start)[0]
    source = build_interval(text, reading.step, start, horizon, zone_name, limits)
    return Schedule(ScheduleKind.INTERVAL, text, zone_name, source)


def _recurrence(
    text: str,
    rule_text: str,
    timezone: str,
    horizon: Horizon,
    dst: tuple[DstGap, DstRepeat],
    limits: ScheduleLimits,
) -> Schedule:
    try:
        block = parse_block(rule_text)
        recurrence = build_recurrence(rule_text, block, timezone, horizon, dst, limits)
    except InvalidSchedule as exc:
        if rule_text == text:
            raise
        reason = f"{exc.reason} (read as {quote(rule_text)})"
        raise InvalidSchedule(text, reason, hint=exc.hint) from exc
    except (ValueError, IndexError, OverflowError) as exc:  # datetime at its limits
        reason = f"the rule cannot be evaluated: {exc}"
        raise InvalidSchedule(
            text, reason, hint="check DTSTART, UNTIL and the BYxxx values"
        ) from exc
    check_gap(text, recurrence_gap_s(recurrence), limits)
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
            text,
            f"the schedule is {len(text)} characters; at most {MAX_TEXT_CHARS} (MAX_TEXT_CHARS)",
            hint="shorten EXDATE/RDATE lists or split the rule",
        )
    if "\x00" in text:
        raise InvalidSchedule(
            text, "the schedule contains a NUL character", position=text.index("\x00")
        )
