"""Calendars over generated schedules: the one exclusion every caller goes through.

For generated schedules of every kind (DST zones included) and generated calendars, the
filtered series is exactly the plain series without the occurrences whose local date a
calendar excludes (or a calendar with included dates does not include); the preview lists
what chained `next_after` calls (the engine's planning, through the rule's stored copy of its
calendars) find; and a calendar that excludes every date ends the search instead of looping.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from itertools import islice
from random import Random
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from schedule_strategies import ZONES, random_schedule

from engine.domain.due import RuleSnapshot
from engine.domain.occurrences import next_occurrence, rule_schedule
from engine.domain.records import MisfirePolicy, OverlapPolicy
from engine.recurrence import ScheduleError, ScheduleLimits, parse_schedule, preview
from engine.recurrence.calendars import Calendar, Calendars, day_start
from engine.store.calendar_codec import from_rule_copy, rule_copy

_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
_AFTER = datetime(2026, 3, 20, 8, tzinfo=UTC)  # a week before Europe's spring-forward
_LIMITS = ScheduleLimits(min_interval_s=60, allow_secondly=False)
_HORIZON_YEARS = 10
_LISTED = 40


def _calendar(rnd: Random, name: str) -> Calendar:
    """Random excluded dates around the preview window (often whole runs of days, and the
    DST change days), sometimes an included list."""
    start = _AFTER.date() - timedelta(days=2)
    days = [start + timedelta(days=rnd.randint(0, 120)) for _ in range(rnd.randint(0, 40))]
    days += [date(2026, 3, 29), date(2026, 10, 25), date(2026, 11, 1)] * rnd.randint(0, 1)
    run_start = start + timedelta(days=rnd.randint(0, 60))
    days += [run_start + timedelta(days=i) for i in range(rnd.randint(0, 30))]
    included: set[date] = set()
    if rnd.random() < 0.2:
        included = {start + timedelta(days=rnd.randint(0, 400)) for _ in range(rnd.randint(1, 60))}
    return Calendar(name, frozenset(days), frozenset(included))


def _schedule(rnd: Random):  # type: ignore[no-untyped-def]
    text, zone = random_schedule(rnd), rnd.choice(ZONES)
    try:
        return parse_schedule(text, zone, anchor=_AFTER, since=_AFTER, limits=_LIMITS)
    except ScheduleError:
        reject()


def _allowed(calendars: tuple[Calendar, ...], at: datetime) -> bool:
    return all(c.allows(at.date()) for c in calendars)


@_SETTINGS
@given(st.randoms(use_true_random=False))
def test_filtered_series_is_plain_series_without_excluded_local_dates(rnd: Random) -> None:
    schedule = _schedule(rnd)
    calendars = tuple(_calendar(rnd, f"c{i}") for i in range(rnd.randint(1, 3)))
    filtered = schedule.with_calendars(calendars)
    plain = list(islice(schedule.occurrences_after(_AFTER), 400))
    kept = list(islice(filtered.occurrences_after(_AFTER), 400))
    if not plain:
        reject()
    horizon = plain[-1].at.astimezone(UTC)
    expected = [o.at for o in plain if _allowed(calendars, o.at)]
    got = [o.at for o in kept if o.at.astimezone(UTC) <= horizon]
    assert [a.astimezone(UTC) for a in got] == [a.astimezone(UTC) for a in expected]
    assert all(_allowed(calendars, at) for at in got)


@_SETTINGS
@given(st.randoms(use_true_random=False))
def test_preview_lists_what_the_engine_plans_from_the_stored_rule(rnd: Random) -> None:
    schedule = _schedule(rnd)
    calendars = tuple(_calendar(rnd, f"c{i}") for i in range(rnd.randint(1, 2)))
    listed = preview(schedule.with_calendars(calendars), _AFTER, _LISTED)
    rule = _snapshot(schedule.text, schedule.timezone, from_rule_copy(rule_copy(calendars)))
    planned_schedule = rule_schedule(rule, _HORIZON_YEARS)
    chain, after = [], _AFTER
    while len(chain) < len(listed.occurrences):
        found = next_occurrence(planned_schedule, rule, after)
        if found is None:
            break
        chain.append(found)
        after = found
    assert chain == [at.astimezone(UTC) for at in listed.occurrences]
    assert next_occurrence(planned_schedule, rule, after) is None or len(chain) == _LISTED
    assert all(_allowed(calendars, at) for at in listed.occurrences)
    for skipped in listed.skipped:
        assert not _allowed(calendars, skipped.at)


def _snapshot(text: str, zone: str, calendars: tuple[Calendar, ...]) -> RuleSnapshot:
    """A stored rule as the loop reads it (anchored and created at _AFTER)."""
    return RuleSnapshot(
        id="r_1", tenant_id="t_1", name="r", schedule=text, timezone=zone, dst_gap="shift",
        dst_repeat="first", runtime="python", code="", params=None, enabled=True, version=1,
        misfire_policy=MisfirePolicy.RUN_LATEST, misfire_grace_s=None,
        overlap_policy=OverlapPolicy.SKIP, max_attempts=1, backoff_s=0, backoff_max_s=0,
        timeout_ms=1000, memory_mb=64, priority=0, jitter_s=0, start_at=None, end_at=None,
        created_at=_AFTER, deleted_at=None, calendars=calendars,
    )  # fmt: skip


def test_every_weekday_excluded_for_years_ends_the_search_quickly() -> None:
    """Three years of weekdays excluded from a minutely weekday rule: one seek per day, and
    with an included list that has no weekday left, no occurrence at all."""
    schedule = parse_schedule(
        "FREQ=MINUTELY;BYDAY=MO,TU,WE,TH,FR", "Europe/Berlin", anchor=_AFTER, limits=_LIMITS
    )
    days = [_AFTER.date() + timedelta(days=i) for i in range(1000)]
    weekdays = frozenset(d for d in days if d.weekday() < 5)
    began = time.monotonic()
    found = schedule.with_calendars((Calendar("all", weekdays),)).next_after(_AFTER)
    assert found is not None and found.date() > max(weekdays) and found.weekday() < 5
    weekends_only = Calendar(
        "weekends", frozenset(), frozenset(d for d in days if d.weekday() >= 5)
    )
    assert schedule.with_calendars((weekends_only,)).next_after(_AFTER) is None
    assert time.monotonic() - began < 30  # generous: it is ~700 seeks, not a million steps


def test_holiday_at_half_past_midnight_is_excluded_by_its_local_date() -> None:
    """00:30 Berlin on Christmas is 23:30 UTC the day before: the local date decides."""
    schedule = parse_schedule("30 0 * * *", "Europe/Berlin", anchor=_AFTER, limits=_LIMITS)
    xmas = Calendar("Holidays DE", frozenset({date(2026, 12, 25)}))
    found = schedule.with_calendars((xmas,)).between(
        datetime(2026, 12, 24, tzinfo=UTC), datetime(2026, 12, 27, tzinfo=UTC)
    )
    assert [at.date() for at in found] == [date(2026, 12, 26), date(2026, 12, 27)]
    text = schedule.with_calendars((xmas,)).describe().text
    assert text.endswith("except dates in calendar 'Holidays DE'")


def test_day_start_is_the_first_instant_of_the_local_date() -> None:
    """Midnight in a gap (Santiago, 2022-09-11: 00:00 -> 01:00) starts the day at the gap's
    end; a repeated midnight (Santiago 2022-04-03 00:00 -> 23:00) at the second one."""
    zone = ZoneInfo("America/Santiago")
    gap = day_start(date(2022, 9, 11), zone)
    assert gap.astimezone(zone).date() == date(2022, 9, 11)
    assert (gap - timedelta(microseconds=1)).astimezone(zone).date() == date(2022, 9, 10)
    repeat = day_start(date(2022, 4, 3), zone)
    assert (repeat - timedelta(microseconds=1)).astimezone(zone).date() == date(2022, 4, 2)
    assert Calendars(()).blocking(date(2022, 1, 1)) is None


def test_preview_of_a_series_whose_last_date_is_excluded_says_so() -> None:
    """COUNT=6 from 20 December: the 25th is its last occurrence and a holiday, so the preview
    lists five runs, the 25th as skipped, and warns that `ends` is not a run."""
    text = "DTSTART;TZID=Europe/Berlin:20261220T090000\nRRULE:FREQ=DAILY;COUNT=6"
    xmas = Calendar("Holidays DE", frozenset({date(2026, 12, 25)}))
    shown = preview(parse_schedule(text, "UTC").with_calendars((xmas,)), _AFTER, 10)
    assert [at.day for at in shown.occurrences] == [20, 21, 22, 23, 24]
    assert [(s.at.day, s.calendar) for s in shown.skipped] == [(25, "Holidays DE")]
    assert any("2026-12-25" in w and "Holidays DE" in w for w in shown.warnings)
