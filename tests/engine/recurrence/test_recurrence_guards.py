"""Bad input gets one specific error; pathological rules are rejected fast; DST cases by zone."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from engine.recurrence import DstGap, DstRepeat, InvalidSchedule, parse_schedule, preview

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
    ("cron-7-fields", "0 9 * * * * 2026", "UTC", "7 fields"),
    ("cron-bad-minute", "61 9 * * *", "UTC", "minute field '61'"),
    ("secondly", "FREQ=SECONDLY", "UTC", "FREQ=SECONDLY"),
    ("too-frequent-rrule", "FREQ=MINUTELY;BYSECOND=0,30", "UTC", "30 s apart"),
    ("too-frequent-interval", "every 10s", "UTC", "below the minimum"),
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
    assert any("horizon cap" in warning for warning in result.warnings)
