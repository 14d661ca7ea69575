"""The horizon is a guard, not an edit: an explicit UNTIL or COUNT is honoured exactly however
old DTSTART is; only an open-ended rule stops at the horizon, counted from its creation (or the
instant a preview is made at). COUNT counts runs in every DST mode."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from schedule_strategies import ZONES

from engine.recurrence import (
    DstGap,
    DstRepeat,
    InvalidSchedule,
    ScheduleLimits,
    parse_schedule,
    preview,
)

_NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _iso(values: list[datetime]) -> list[str]:
    return [at.isoformat() for at in values]


def test_old_dtstart_with_until_runs_until_until() -> None:
    text = "DTSTART:20170101T090000Z RRULE:FREQ=DAILY;UNTIL=20300101T000000Z"
    result = preview(parse_schedule(text, "UTC", anchor=_NOW), _NOW, 3)
    assert _iso(result.occurrences)[0] == "2026-03-01T09:00:00+00:00"
    assert (result.ends, result.ends_by) == (datetime(2029, 12, 31, 9, tzinfo=UTC), "until")
    assert "until January 1, 2030" in result.text
    assert not any("horizon" in warning for warning in result.warnings)


@pytest.mark.parametrize(
    ("rule", "ends"),
    [
        ("COUNT=5000", datetime(2028, 9, 8, 9, tzinfo=UTC)),
        ("UNTIL=20300101T000000Z", datetime(2029, 12, 31, 9, tzinfo=UTC)),
        ("UNTIL=20700101T000000Z", datetime(2069, 12, 31, 9, tzinfo=UTC)),  # past the horizon
    ],
)
def test_explicit_end_of_a_2015_rule_is_honoured(rule: str, ends: datetime) -> None:
    text = f"DTSTART:20150101T090000Z RRULE:FREQ=DAILY;{rule}"
    result = preview(parse_schedule(text, "UTC", anchor=_NOW), _NOW, 2)
    assert len(result.occurrences) == 2
    assert result.ends == ends
    assert result.finite


def test_open_ended_rule_counts_its_horizon_from_now_not_from_an_old_dtstart() -> None:
    text = "DTSTART:20100104T090000Z RRULE:FREQ=WEEKLY"
    result = preview(parse_schedule(text, "UTC", anchor=_NOW), _NOW, 2)
    assert _iso(result.occurrences) == ["2026-03-02T09:00:00+00:00", "2026-03-09T09:00:00+00:00"]
    assert result.ends_by == "cap"
    assert result.ends is not None and result.ends.year == 2036
    assert "stops at the horizon on 2036-03-01, 10 years after 2026-03-01" in result.warnings[0]


def test_stored_rule_horizon_counts_from_its_creation() -> None:
    """`since` (the rule's creation) fixes the cap, whatever instant it is evaluated at."""
    created = datetime(2020, 6, 1, tzinfo=UTC)
    schedule = parse_schedule("FREQ=DAILY;BYHOUR=9", "UTC", anchor=created, since=created)
    assert schedule.source.ends == datetime(2030, 5, 31, 9, tzinfo=UTC)
    assert schedule.next_after(datetime(2030, 6, 1, tzinfo=UTC)) is None


def test_rfc_example_with_1997_dtstart_gives_all_its_dates() -> None:
    text = "DTSTART;TZID=America/New_York:19970902T090000 RRULE:FREQ=DAILY;COUNT=20"
    schedule = parse_schedule(text, "UTC")  # anchored now: DTSTART is 29 years old
    listed = preview(schedule, datetime(1997, 1, 1, tzinfo=UTC), 25).occurrences
    assert len(listed) == 20
    assert listed[-1] == datetime(1997, 9, 21, 13, tzinfo=UTC)


COUNT_DST = [
    # (id, text, after (UTC), dst options, the runs (local ISO))
    (
        "new-york-hourly-shift-counts-five-runs",
        "DTSTART;TZID=America/New_York:20240310T000000 RRULE:FREQ=HOURLY;COUNT=5",
        datetime(2024, 3, 9, tzinfo=UTC),
        {},
        ["00:00-05:00", "01:00-05:00", "03:00-04:00", "04:00-04:00", "05:00-04:00"],
    ),
    (
        "new-york-hourly-skip-does-not-count-the-skipped",
        "DTSTART;TZID=America/New_York:20240310T000000 RRULE:FREQ=HOURLY;COUNT=5",
        datetime(2024, 3, 9, tzinfo=UTC),
        {"dst_gap": DstGap.SKIP},
        ["00:00-05:00", "01:00-05:00", "03:00-04:00", "04:00-04:00", "05:00-04:00"],
    ),
    (
        "lord-howe-half-hour-gap",
        "DTSTART;TZID=Australia/Lord_Howe:20241006T013000 RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6",
        datetime(2024, 10, 5, tzinfo=UTC),
        {},
        ["01:30+10:30", "01:45+10:30", "02:30+11:00", "02:45+11:00", "03:00+11:00", "03:15+11:00"],
    ),
    (
        "new-york-fall-back-both-counts-both-runs",
        "DTSTART;TZID=America/New_York:20241103T003000 RRULE:FREQ=HOURLY;COUNT=4",
        datetime(2024, 11, 2, tzinfo=UTC),
        {"dst_repeat": DstRepeat.BOTH},
        ["00:30-04:00", "01:30-04:00", "01:30-05:00", "02:30-05:00"],
    ),
]


@pytest.mark.parametrize(
    ("text", "after", "options", "runs"),
    [c[1:] for c in COUNT_DST],
    ids=[c[0] for c in COUNT_DST],
)
def test_count_counts_runs_across_dst(
    text: str, after: datetime, options: dict, runs: list[str]
) -> None:
    result = preview(parse_schedule(text, "UTC", anchor=after, **options), after, 20)
    assert [f"{at:%H:%M}{at.isoformat()[19:]}" for at in result.occurrences] == runs
    assert result.ends == result.occurrences[-1]


def test_apia_daily_count_runs_five_times_across_the_lost_day() -> None:
    text = "DTSTART;TZID=Pacific/Apia:20111228T090000 RRULE:FREQ=DAILY;COUNT=5"
    after = datetime(2011, 12, 1, tzinfo=UTC)
    result = preview(parse_schedule(text, "UTC", anchor=after), after, 10)
    assert [at.date().isoformat() for at in result.occurrences] == [
        "2011-12-28", "2011-12-29", "2011-12-31", "2012-01-01", "2012-01-02",
    ]  # fmt: skip
    assert any("does not exist on 2011-12-30" in warning for warning in result.warnings)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(["HOURLY", "MINUTELY;INTERVAL=30", "DAILY;BYHOUR=1,2,3", "MINUTELY"]),
    st.integers(1, 60),
    st.sampled_from(ZONES),
    st.sampled_from(list(DstGap)),
    st.sampled_from(list(DstRepeat)),
    st.integers(0, 2000),
)
def test_count_is_the_number_of_runs(
    rule: str, count: int, zone: str, gap: DstGap, repeat: DstRepeat, hours: int
) -> None:
    """Whatever DST does around the start, a COUNT=n series has exactly n distinct runs."""
    start = datetime(2024, 1, 1) + timedelta(hours=hours * 4)
    text = f"DTSTART;TZID={zone}:{start:%Y%m%dT%H%M%S} RRULE:FREQ={rule};COUNT={count}"
    limits = ScheduleLimits(min_interval_s=1)
    try:
        schedule = parse_schedule(text, "UTC", dst_gap=gap, dst_repeat=repeat, limits=limits)
    except InvalidSchedule:
        reject()
    runs = preview(schedule, datetime(2023, 12, 1, tzinfo=UTC), 100).occurrences
    assert len({at.astimezone(UTC) for at in runs}) == count


PATHOLOGICAL = [
    # rules that never occur, or are rare, with ends far away: answered, and fast
    "DTSTART:20150101T090000Z RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;UNTIL=99991231T000000Z",
    "DTSTART:20150101T090000Z RRULE:FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30;COUNT=5",
    "DTSTART:20150101T090000Z RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30;COUNT=5",
    "DTSTART:20150101T090000Z RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=50",
    "DTSTART:20160301T000000Z RRULE:FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=23;BYMINUTE=59",
    "DTSTART:20150101T090000Z RRULE:FREQ=WEEKLY;BYMONTH=2;BYDAY=MO;BYSETPOS=3;COUNT=3",
    "DTSTART:20150105T000000Z RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU",
    "DTSTART:20150105T000000Z RRULE:FREQ=MINUTELY;INTERVAL=10080;BYDAY=TU",
    "FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO;BYMONTH=1",
    "FREQ=DAILY;COUNT=999999",
    "FREQ=SECONDLY;COUNT=999999999",
    "15 0,12 31 2 MON-FRI",
    "0 9 29 2 *",
    "0 9 31 2 *",
]


@pytest.mark.parametrize("text", PATHOLOGICAL)
def test_pathological_rule_answered_without_walking_its_years(text: str) -> None:
    """Walking such a rule occurrence by occurrence takes plain dateutil seconds to minutes;
    the bound is generous (best of three, a hundred times the idle machine's time) so that
    only that regression fails it, not a busy machine. The speed itself is in bench/."""
    timings = []
    limits = ScheduleLimits(min_interval_s=1, allow_secondly=True)
    for round_ in range(3):
        anchor = _NOW + timedelta(minutes=round_)  # a fresh parse each round (no cache)
        started = time.perf_counter()
        try:
            preview(parse_schedule(text, "UTC", anchor=anchor, limits=limits), anchor, 10)
        except InvalidSchedule as exc:
            assert "\n" not in str(exc)
        timings.append(time.perf_counter() - started)
    assert min(timings) < 2.0


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Pacific/Kiritimati"])
def test_until_at_the_end_of_the_calendar_is_honoured_in_every_zone(zone: str) -> None:
    """`UNTIL=99991231T235959Z` (the usual 'forever' of calendar exports) falls after the
    calendar's end in zones east of UTC: it means the calendar's end there."""
    text = f"DTSTART;TZID={zone}:19970101T090000 RRULE:FREQ=DAILY;UNTIL=99991231T235959Z"
    result = preview(parse_schedule(text, "UTC", anchor=_NOW), _NOW, 2)
    assert len(result.occurrences) == 2
    assert result.ends_by == "until"
    assert result.ends is not None and result.ends.year == 9999


@pytest.mark.parametrize(
    ("text", "zone", "message"),
    [
        ("9999-12-31T23:00:00", "America/New_York", "the instant is out of range"),
        ("every 999999999 days", "UTC", "is longer than the horizon"),
        ("EXRULE:FREQ=DAILY", "UTC", "EXRULE is deprecated by RFC 5545 and not supported"),
        ("DTSTART:00010101T090000 RRULE:FREQ=DAILY", "UTC", "years 2..9999"),
    ],
)
def test_edges_of_the_calendar_are_refused_plainly(text: str, zone: str, message: str) -> None:
    with pytest.raises(InvalidSchedule, match=message):
        parse_schedule(text, zone, anchor=_NOW)
