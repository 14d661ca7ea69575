"""Bad input gets one specific error; pathological rules are rejected fast; DST cases by zone."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from engine.recurrence import (
    DstGap,
    DstRepeat,
    InvalidSchedule,
    RangeTooLarge,
    ScheduleError,
    ScheduleLimits,
    parse_schedule,
    preview,
)

_ANCHOR = datetime(2026, 1, 1, 12, tzinfo=UTC)

BAD = [
    # (id, text, zone, fragment the one-line message must contain)
    ("garbage", "hello world zzz", "UTC", "not understood"),
    ("huge", "FREQ=DAILY;" * 10_000, "UTC", "at most 16384"),
    ("interval-0", "FREQ=DAILY;INTERVAL=0", "UTC", "INTERVAL=0"),
    ("negative-count", "FREQ=DAILY;COUNT=-3", "UTC", "COUNT=-3"),
    (
        "until-before-dtstart",
        "DTSTART:20260101T090000Z RRULE:FREQ=DAILY;UNTIL=20250101T000000Z",
        "UTC",
        "before DTSTART",
    ),
    ("bysetpos-0", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", "UTC", "BYSETPOS=0"),
    ("numbered-byday-weekly", "FREQ=WEEKLY;BYDAY=1MO", "UTC", "BYDAY=1MO"),
    (
        "bymonthday-32",
        "FREQ=MONTHLY;BYMONTHDAY=32",
        "UTC",
        "BYMONTHDAY=32: day of month must be 1..31 or -31..-1",
    ),
    ("unknown-zone", "FREQ=DAILY", "Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
    ("cron-7-fields", "0 9 * * * * 2026", "UTC", "cron with 7 fields (seconds and year fields)"),
    ("cron-6-fields", "0 0 9 * * *", "UTC", "cron with 6 fields (a seconds or a year field)"),
    ("cron-reboot", "@reboot", "UTC", "@reboot is not supported"),
    ("cron-unknown-alias", "@fortnightly", "UTC", "'@fortnightly': unknown cron alias"),
    ("cron-nth-with-day", "0 9 1 * FRI#2", "UTC", "together with the other day field"),
    ("cron-bad-minute", "61 9 * * *", "UTC", "minute field '61'"),
    ("secondly", "FREQ=SECONDLY", "UTC", "runs 1 s apart at the closest"),
    ("too-frequent-rrule", "FREQ=MINUTELY;BYSECOND=0,30", "UTC", "30 s apart"),
    ("too-frequent-interval", "every 10s", "UTC", "this tenant's minimum is 60 s"),
    ("count-too-many-digits", "FREQ=DAILY;COUNT=1000000000", "UTC", "at most 999999999"),
    (
        "count-past-the-calendar",
        "FREQ=YEARLY;COUNT=100000",
        "UTC",
        "COUNT=100000: only 7974 occurrences fit before the end of year 9999",
    ),
    ("unknown-part", "FREQ=DAILY;BYFOO=1", "UTC", "BYFOO"),
    ("count-and-until", "FREQ=DAILY;COUNT=2;UNTIL=20300101T000000Z", "UTC", "COUNT and UNTIL"),
    (
        "weekno-not-yearly",
        "FREQ=MONTHLY;BYWEEKNO=3",
        "UTC",
        "BYWEEKNO: not allowed with FREQ=MONTHLY",
    ),
]
PATHOLOGICAL = [
    ("feb-30-yearly", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"),
    ("feb-30-minutely", "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30"),
    ("april-31-hourly", "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31"),
    ("sixth-monday", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6"),
    (
        "leap-day-off-cycle",
        "DTSTART:20250301T000000Z RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29",
    ),
    ("cron-feb-31", "0 9 31 2 *"),
]


@pytest.mark.parametrize(
    ("text", "zone", "fragment"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_input_names_the_offending_part(text: str, zone: str, fragment: str) -> None:
    with pytest.raises(InvalidSchedule) as caught:
        parse_schedule(text, zone, anchor=_ANCHOR)
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", [p[1] for p in PATHOLOGICAL], ids=[p[0] for p in PATHOLOGICAL])
def test_never_occurring_rule_rejected_within_100ms(text: str) -> None:
    """Best of three, so a busy shared machine does not turn noise into a failure."""
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        with pytest.raises(InvalidSchedule, match="never"):
            parse_schedule(text, "UTC", anchor=_ANCHOR)
        timings.append(time.perf_counter() - started)
    assert min(timings) < 0.1


DST = [
    # (id, text, zone, dst options, after (UTC), expected local ISO times)
    (
        "daily-0230-berlin-spring-forward-runs-0330",
        "FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
        "Europe/Berlin",
        {},
        "2026-03-28T00:00:00",
        ["2026-03-28T02:30:00+01:00", "2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00"],
    ),
    (
        "daily-0230-berlin-skip",
        "FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
        "Europe/Berlin",
        {"dst_gap": DstGap.SKIP},
        "2026-03-28T00:00:00",
        ["2026-03-28T02:30:00+01:00", "2026-03-30T02:30:00+02:00", "2026-03-31T02:30:00+02:00"],
    ),
    (
        "daily-0130-new-york-fall-back-first",
        "FREQ=DAILY;BYHOUR=1;BYMINUTE=30",
        "America/New_York",
        {},
        "2026-10-31T12:00:00",
        ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"],
    ),
    (
        "daily-0130-new-york-fall-back-both",
        "FREQ=DAILY;BYHOUR=1;BYMINUTE=30",
        "America/New_York",
        {"dst_repeat": DstRepeat.BOTH},
        "2026-10-31T12:00:00",
        ["2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-02T01:30:00-05:00"],
    ),
    (
        "hourly-across-gap-keeps-one",
        "FREQ=HOURLY",
        "Europe/Berlin",
        {},
        "2026-03-28T23:30:00",
        ["2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"],
    ),
    (
        "cron-0230-berlin-runs-0300",
        "30 2 * * *",
        "Europe/Berlin",
        {},
        "2026-03-28T12:00:00",
        ["2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"],
    ),
    (
        "cron-fixed-once-in-repeat",
        "30 2 * * *",
        "Europe/Berlin",
        {},
        "2026-10-24T12:00:00",
        ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"],
    ),
    (
        "cron-wildcard-follows-wall-clock",
        "30 * * * *",
        "Europe/Berlin",
        {},
        "2026-10-25T00:00:00",
        ["2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00", "2026-10-25T03:30:00+01:00"],
    ),
    (
        "lord-howe-half-hour-gap",
        "FREQ=DAILY;BYHOUR=2;BYMINUTE=15",
        "Australia/Lord_Howe",
        {},
        "2026-10-03T00:00:00",
        ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"],
    ),
    (
        "sydney-spring-forward",
        "FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
        "Australia/Sydney",
        {},
        "2026-10-03T00:00:00",
        ["2026-10-04T03:30:00+11:00", "2026-10-05T02:30:00+11:00"],
    ),
    (
        "interval-counts-real-time",
        "every 1h",
        "Europe/Berlin",
        {},
        "2026-03-28T23:30:00",
        ["2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00"],
    ),
]


@pytest.mark.parametrize(
    ("text", "zone", "options", "after", "expected"), [d[1:] for d in DST], ids=[d[0] for d in DST]
)
def test_dst_case(text: str, zone: str, options: dict, after: str, expected: list[str]) -> None:
    schedule = parse_schedule(text, zone, anchor=_ANCHOR, **options)
    start = datetime.fromisoformat(after).replace(tzinfo=UTC)
    got = preview(schedule, start, len(expected)).occurrences
    assert [at.isoformat() for at in got] == expected


def test_gap_is_noted_in_preview() -> None:
    schedule = parse_schedule("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "Europe/Berlin", anchor=_ANCHOR)
    result = preview(schedule, datetime(2026, 3, 28, tzinfo=UTC), 3)
    assert "2026-03-29 02:30 -> 03:30 (DST gap)" in [n.note for n in result.notes]
    assert "02:30 does not exist on 2026-03-29; runs at 03:30" in result.warnings


def test_unbounded_rule_shows_its_cap() -> None:
    result = preview(parse_schedule("FREQ=DAILY", "UTC", anchor=_ANCHOR), _ANCHOR, 2)
    assert result.ends == datetime(2036, 1, 1, 12, tzinfo=UTC)
    assert (result.ends_by, result.finite) == ("cap", False)
    assert "stops at the horizon on 2036-01-01, 10 years after 2026-01-01" in result.warnings[0]


def test_missing_day_warning_names_the_day() -> None:
    schedule = parse_schedule("FREQ=MONTHLY;BYMONTHDAY=31", "UTC", anchor=_ANCHOR)
    assert "skips months without a 31st day" in preview(schedule, _ANCHOR, 3).warnings


def test_count_beyond_horizon_is_honoured() -> None:
    schedule = parse_schedule("FREQ=YEARLY;COUNT=50", "UTC", anchor=_ANCHOR)
    result = preview(schedule, _ANCHOR - timedelta(minutes=1), 60)
    assert len(result.occurrences) == 50
    assert (result.ends_by, result.ends) == ("count", datetime(2075, 1, 1, 12, tzinfo=UTC))
    assert not any("horizon" in warning for warning in result.warnings)


def test_date_until_includes_its_day() -> None:
    schedule = parse_schedule("FREQ=DAILY;BYHOUR=9;UNTIL=20260103", "UTC", anchor=_ANCHOR)
    got = preview(schedule, _ANCHOR, 5).occurrences
    assert [at.day for at in got] == [2, 3]
    assert (preview(schedule, _ANCHOR).finite, preview(schedule, _ANCHOR).ends_by) == (
        True,
        "until",
    )


def test_tenant_limits_apply() -> None:
    strict = ScheduleLimits(min_interval_s=3600)
    message = "runs 1800 s apart at the closest; this tenant's minimum is 3600 s (min_interval_s)"
    for spelling in ("every 30m", "*/30 * * * *", "FREQ=MINUTELY;INTERVAL=30", "PT30M"):
        with pytest.raises(InvalidSchedule) as caught:
            parse_schedule(spelling, "UTC", anchor=_ANCHOR, limits=strict)
        assert caught.value.reason == message
    relaxed = ScheduleLimits(min_interval_s=1, allow_secondly=True)
    secondly = parse_schedule("FREQ=SECONDLY;INTERVAL=10", "UTC", anchor=_ANCHOR, limits=relaxed)
    assert secondly.next_after(_ANCHOR) == datetime(2026, 1, 1, 12, 0, 10, tzinfo=UTC)
    short = ScheduleLimits(horizon_years=1)
    capped = parse_schedule("FREQ=DAILY", "UTC", anchor=_ANCHOR, limits=short)
    assert capped.source.ends == datetime(2027, 1, 1, 12, tzinfo=UTC)


def test_between_is_bounded() -> None:
    schedule = parse_schedule("FREQ=MINUTELY", "UTC", anchor=_ANCHOR)
    assert len(schedule.between(_ANCHOR, datetime(2026, 1, 1, 13, tzinfo=UTC))) == 60
    with pytest.raises(RangeTooLarge):
        schedule.between(_ANCHOR, datetime(2026, 2, 1, tzinfo=UTC))


def test_naive_instant_is_refused() -> None:
    schedule = parse_schedule("FREQ=DAILY", "UTC", anchor=_ANCHOR)
    with pytest.raises(ScheduleError, match="no time zone"):
        schedule.next_after(datetime(2026, 1, 1))


CRON_DAYS = [
    # (id, expression, expected dates in January 2026) — Vixie: OR when both restricted
    ("dom-or-dow", "0 9 13 * FRI", [2, 9, 13, 16, 23, 30]),
    ("star-step-dom-means-and", "0 9 */2 * FRI", [9, 23]),
    ("star-dow-means-dom-only", "0 9 13 * *", [13]),
    ("dow-step-means-and", "0 9 1-10 * */3", [3, 4, 7, 10]),  # Sun/Wed/Sat among 1..10
]


@pytest.mark.parametrize(
    ("expression", "days"), [c[1:] for c in CRON_DAYS], ids=[c[0] for c in CRON_DAYS]
)
def test_cron_day_fields_follow_vixie(expression: str, days: list[int]) -> None:
    schedule = parse_schedule(expression, "UTC", anchor=datetime(2026, 1, 1, tzinfo=UTC))
    got = schedule.between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC))
    assert [at.day for at in got] == days


def test_english_that_is_not_understood_suggests_rrule() -> None:
    with pytest.raises(
        InvalidSchedule, match=r"'except holidays': not understood.*RRULE"
    ) as caught:
        parse_schedule("every weekday at 9am except holidays", "UTC", anchor=_ANCHOR)
    assert caught.value.position == len("every weekday at 9am ")


def test_skipped_gap_time_is_named_in_preview() -> None:
    schedule = parse_schedule(
        "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "Europe/Berlin", anchor=_ANCHOR, dst_gap=DstGap.SKIP
    )
    result = preview(schedule, datetime(2026, 3, 28, tzinfo=UTC), 3)
    assert "02:30 does not exist on 2026-03-29; skipped (DST gap)" in result.warnings
