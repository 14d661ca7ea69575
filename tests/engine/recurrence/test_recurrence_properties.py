"""Property tests: our evaluation equals plain dateutil (and croniter) evaluated from the start,
and next_after / between / preview agree, increase strictly, skip EXDATEs and terminate.

The references are independent of our code: dateutil iterated from DTSTART (bounded by a
signal alarm, since dateutil itself can loop for minutes on rules that never occur), each wall
time mapped to instants by the documented DST policy, COUNT counted in runs.
"""

from __future__ import annotations

import signal
from collections.abc import Generator, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from itertools import islice, pairwise
from random import Random
from zoneinfo import ZoneInfo

import pytest
from croniter import croniter
from dateutil.rrule import rrulestr
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from schedule_strategies import ZONES, random_cron, random_rrule

from engine.recurrence import DstGap, DstRepeat, InvalidSchedule, ScheduleLimits, parse_schedule
from engine.recurrence import preview as build_preview

_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
_ANCHOR = datetime(2026, 1, 5, 8, tzinfo=UTC)
_LIMITS = ScheduleLimits(min_interval_s=1, allow_secondly=True)
_HORIZON_YEARS = 10


class _Slow(Exception):
    pass


def _bounded(walls: Iterator[datetime], seconds: float = 1.0) -> Iterator[datetime]:
    """dateutil's walls, given up (reject) once dateutil itself has taken `seconds`: the alarm
    is armed only while dateutil computes the next wall."""

    def alarm(*_: object) -> None:
        raise _Slow

    previous = signal.signal(signal.SIGALRM, alarm)
    budget = seconds
    try:
        while True:
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                wall = next(walls)
            except StopIteration:
                return
            finally:
                budget = max(signal.setitimer(signal.ITIMER_REAL, 0)[0], 1e-3)
            yield wall
    except _Slow:
        reject()
    finally:
        signal.signal(signal.SIGALRM, previous)


@st.composite
def dated_rules(draw: st.DrawFn) -> tuple[str, datetime, timedelta]:
    """(RRULE, DTSTART wall time, how far after DTSTART to query)."""
    rnd = draw(st.randoms(use_true_random=False))
    rule = random_rrule(rnd)
    start = datetime(2016, 1, 1) + timedelta(seconds=rnd.randint(0, 10 * 365 * 86400))
    sub_daily = any(f"FREQ={f}" in rule for f in ("HOURLY", "MINUTELY", "SECONDLY"))
    offset = timedelta(seconds=rnd.randint(0, (20 if sub_daily else 900) * 86400))
    return rule, start, offset


def _reference_runs(
    rule: str, wall: datetime, zone: str, gap: DstGap, repeat: DstRepeat
) -> Generator[datetime]:
    """Plain dateutil from DTSTART, each wall time mapped by the documented DST policy, COUNT
    counting runs (instants), and the horizon for a rule with neither COUNT nor UNTIL."""
    tz = ZoneInfo(zone)
    count = next((int(p[6:]) for p in rule.split(";") if p.startswith("COUNT=")), None)
    plain = ";".join(_local_until(p, tz) for p in rule.split(";") if not p.startswith("COUNT="))
    cap = None
    if count is None and "UNTIL=" not in rule:
        start = max(wall, _ANCHOR.astimezone(tz).replace(tzinfo=None, second=0))
        cap = start.replace(year=start.year + _HORIZON_YEARS, day=min(start.day, 28))
    seen: set[datetime] = set()
    for local in _bounded(iter(rrulestr(f"DTSTART:{wall:%Y%m%dT%H%M%S}\nRRULE:{plain}"))):
        if cap is not None and local > cap:
            return
        for at in _instants(local, tz, gap, repeat):
            if at not in seen:
                seen.add(at)
                yield at
                if count is not None and len(seen) == count:
                    return


def _local_until(part: str, tz: ZoneInfo) -> str:
    """UNTIL in UTC as the zone's wall time (how a TZID DTSTART reads it)."""
    if not part.startswith("UNTIL="):
        return part
    until = datetime.strptime(part[6:], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    return f"UNTIL={until.astimezone(tz):%Y%m%dT%H%M%S}"


def _instants(wall: datetime, tz: ZoneInfo, gap: DstGap, repeat: DstRepeat) -> list[datetime]:
    first = wall.replace(tzinfo=tz).astimezone(UTC)
    exists = first.astimezone(tz).replace(tzinfo=None) == wall
    found = [first] if exists or gap is DstGap.SHIFT else []
    second = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if exists and repeat is DstRepeat.BOTH and second != first:
        found.append(second)
    return found


def _reference_after(runs: Generator[datetime], instant: datetime) -> datetime | None:
    """The first run after `instant` (runs near a DST change may come slightly out of order)."""
    best = None
    with closing(runs):  # closing disarms the alarm of `_bounded`
        for at in runs:
            if at > instant and (best is None or at < best):
                best = at
            if best is not None and at - timedelta(days=2) > best:
                break
    return best


@_SETTINGS
@given(
    dated_rules(),
    st.sampled_from(ZONES),
    st.sampled_from(list(DstGap)),
    st.sampled_from(list(DstRepeat)),
)
def test_next_after_equals_plain_dateutil_under_every_dst_policy(
    case: tuple[str, datetime, timedelta], zone: str, gap: DstGap, repeat: DstRepeat
) -> None:
    rule, wall, offset = case
    text = f"DTSTART;TZID={zone}:{wall:%Y%m%dT%H%M%S} RRULE:{rule}"
    options = {"anchor": _ANCHOR, "limits": _LIMITS, "dst_gap": gap, "dst_repeat": repeat}
    try:
        schedule = parse_schedule(text, "UTC", **options)  # type: ignore[arg-type]
    except InvalidSchedule:
        reject()
    instant = wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC) + offset
    expected = _reference_after(_reference_runs(rule, wall, zone, gap, repeat), instant)
    got = schedule.next_after(instant)
    assert (got.astimezone(UTC) if got else None) == expected


@_SETTINGS
@given(st.randoms(use_true_random=False), st.integers(0, 500_000))
def test_cron_equals_croniter(rnd: Random, minutes: int) -> None:
    """In UTC (no DST), with Vixie's OR/AND of the day fields."""
    expression = random_cron(rnd)
    anchor = _ANCHOR + timedelta(minutes=minutes)
    try:
        schedule = parse_schedule(expression, "UTC", anchor=anchor, limits=_LIMITS)
    except InvalidSchedule:
        reject()
    fields = expression.split()
    day_or = not (fields[2].startswith(("*", "?")) or fields[4].startswith(("*", "?")))
    it = croniter(expression, anchor.replace(tzinfo=None), day_or=day_or)
    horizon = anchor.replace(year=anchor.year + _HORIZON_YEARS, tzinfo=None)
    expected = [wall for wall in (it.get_next(datetime) for _ in range(20)) if wall <= horizon]
    got = [o.at.replace(tzinfo=None) for o in islice(schedule.occurrences_after(anchor), 20)]
    assert got == expected[: len(got)] and len(got) >= min(len(expected), 20)


@_SETTINGS
@given(dated_rules())
def test_next_after_agrees_with_between_and_preview(case: tuple[str, datetime, timedelta]) -> None:
    rule, wall, offset = case
    try:
        schedule = parse_schedule(
            f"DTSTART:{wall:%Y%m%dT%H%M%SZ} RRULE:{rule}", "UTC", anchor=_ANCHOR, limits=_LIMITS
        )
    except InvalidSchedule:
        reject()
    start = wall.replace(tzinfo=UTC) + offset
    listed = build_preview(schedule, start, 8).occurrences
    chained, at = [], start
    for _ in range(8):
        found = schedule.next_after(at)
        if found is None:
            break
        chained.append(found)
        at = found
    assert listed == chained
    assert all(a < b for a, b in pairwise(chained))
    if chained:
        tick = timedelta(microseconds=1)  # between() includes its start; next_after excludes it
        assert schedule.between(start + tick, chained[-1] + tick) == chained


@_SETTINGS
@given(dated_rules(), st.integers(0, 5))
def test_exdates_never_returned(case: tuple[str, datetime, timedelta], skip: int) -> None:
    rule, wall, offset = case
    text = f"DTSTART:{wall:%Y%m%dT%H%M%SZ} RRULE:{rule}"
    try:
        plain = parse_schedule(text, "UTC", anchor=_ANCHOR, limits=_LIMITS)
    except InvalidSchedule:
        reject()
    start = wall.replace(tzinfo=UTC) + offset
    first = build_preview(plain, start, 6).occurrences
    if len(first) <= skip:
        reject()
    excluded = first[skip]
    stamp = f"EXDATE:{excluded.astimezone(UTC):%Y%m%dT%H%M%SZ} "
    try:
        schedule = parse_schedule(stamp + text, "UTC", anchor=_ANCHOR, limits=_LIMITS)
    except InvalidSchedule:
        reject()  # the EXDATE removed its only occurrence
    got = build_preview(schedule, start, 6).occurrences
    assert excluded not in got
    assert got[:skip] == first[:skip]


@pytest.mark.parametrize("zone", ZONES)
def test_zone_changes_match_the_c_implementation(zone: str) -> None:
    """`transitions` reads zoneinfo's pure-Python twin: its changes must be the C module's."""
    from engine.recurrence.transitions import transitions

    tz = ZoneInfo(zone)
    low, high = datetime(1990, 1, 1, tzinfo=UTC), datetime(2060, 1, 1, tzinfo=UTC)
    changes = transitions(tz, low, high)
    points = [low] + [change.at for change in changes] + [high]
    for change in changes:
        assert (change.at - timedelta(seconds=1)).astimezone(tz).utcoffset() == change.before
        assert change.at.astimezone(tz).utcoffset() == change.after
    for a, b in pairwise(points):  # no change between two found ones
        middle = a + (b - a) / 2
        assert (
            middle.astimezone(tz).utcoffset()
            == (a + timedelta(seconds=1)).astimezone(tz).utcoffset()
        )
