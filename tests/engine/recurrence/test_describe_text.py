"""Plain-English text of common rules, English input, age-independent cost, and the CLI's errors."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.recurrence import parse_schedule

_ANCHOR = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)

TEXTS = [
    # (id, schedule, zone, expected text, complete)
    ("weekdays", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "UTC", "every weekday at 8:00 (UTC)", True),
    (
        "last-monday",
        "FREQ=MONTHLY;BYDAY=-1MO;BYHOUR=9",
        "UTC",
        "every month on the last Monday at 9:00 (UTC)",
        True,
    ),
    (
        "three-hours",
        "FREQ=DAILY;BYHOUR=10,12,17",
        "UTC",
        "every day at 10:00, 12:00 and 17:00 (UTC)",
        True,
    ),
    (
        "berlin-weekdays",
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9",
        "Europe/Berlin",
        "every weekday at 9:00 (Europe/Berlin)",
        True,
    ),
    (  # COUNT depends on where the series starts, so the text says it
        "count",
        "FREQ=DAILY;BYHOUR=9;COUNT=20",
        "UTC",
        "every day at 9:00 for 20 times, starting January 5, 2026 at 8:00 (UTC)",
        True,
    ),
    (
        "until",
        "FREQ=WEEKLY;BYDAY=TU;BYHOUR=9;UNTIL=20261110T230000Z",
        "UTC",
        "every week on Tuesday at 9:00 until November 10, 2026 at 23:00 (UTC)",
        True,
    ),
    (
        "last-weekday",
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=18",
        "UTC",
        "every month on the last weekday at 18:00 (UTC)",
        True,
    ),
    (  # BYSETPOS over two months: the last Sunday of the two, not of each
        "setpos-over-months",
        "FREQ=YEARLY;BYMONTH=3,9;BYDAY=SU;BYSETPOS=-1;BYHOUR=9",
        "UTC",
        "every year on Sunday in March and September at 9:00, keeping only the last of each "
        "year (UTC)",
        True,
    ),
    (  # BYSETPOS over times: the first Monday at 9:00 only
        "setpos-over-times",
        "FREQ=MONTHLY;BYDAY=MO;BYHOUR=9,17;BYSETPOS=1",
        "UTC",
        "every month on Monday at 9:00 and 17:00, keeping only the first of each month (UTC)",
        True,
    ),
    (
        "weekno",
        "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;BYHOUR=9",
        "UTC",
        "every year on Monday in week 20 of the year at 9:00 (UTC)",
        True,
    ),
    (
        "minutely-has-zone",
        "FREQ=MINUTELY;INTERVAL=15",
        "Europe/Berlin",
        "every 15 minutes by the clock (Europe/Berlin)",
        True,
    ),
    ("cron-weekdays", "30 9 * * 1-5", "UTC", "at 09:30, Monday through Friday (UTC)", True),
    ("cron-every-15", "*/15 * * * *", "UTC", "every 15 minutes by the clock (UTC)", True),
    ("cron-step-not-dividing", "*/45 * * * *", "UTC", "every hour at :00 and :45 (UTC)", True),
    (
        "cron-hour-step",
        "0 */5 * * *",
        "UTC",
        "at 00:00, 05:00, 10:00, 15:00 and 20:00 (UTC)",
        True,
    ),
    (
        "cron-like-cron-descriptor",
        "*/10 9-17 * * MON-FRI",
        "UTC",
        "every 10 minutes by the clock, between 09:00 and 17:59, Monday through Friday (UTC)",
        True,
    ),
    ("cron-or", "0 9 1 * MON", "UTC", "at 09:00, on the 1st of the month or on Monday (UTC)", True),
    (
        "cron-nearest-weekday",
        "0 9 15W * *",
        "UTC",
        "at 09:00, on the weekday nearest the 15th of the month (UTC) (not put into words: "
        "day-of-month 15W: the weekday nearest that day)",
        False,
    ),
    (
        "interval",
        "every 15m",
        "UTC",
        "every 15 minutes of elapsed time, starting January 5, 2026 at 8:00 (UTC)",
        True,
    ),
]


@pytest.mark.parametrize(
    ("text", "zone", "expected", "complete"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS]
)
def test_describe_reads_like_a_calendar(
    text: str, zone: str, expected: str, complete: bool
) -> None:
    description = parse_schedule(text, zone, anchor=_ANCHOR).describe()
    assert (description.text, description.complete) == (expected, complete)


ENGLISH = [
    ("every weekday at 9am", "every weekday at 9:00 (Europe/Berlin)"),
    (
        "every 2 weeks on Monday and Thursday at 17:30",
        "every 2 weeks on Monday and Thursday at 17:30, starting January 5, 2026 at 9:00 "
        "(Europe/Berlin)",
    ),
    (
        "on the last Friday of every month at 18:00",
        "every month on the last Friday at 18:00 (Europe/Berlin)",
    ),
    ("every weekend at 10am", "every weekend at 10:00 (Europe/Berlin)"),
    ("daily at 9:30pm", "every day at 21:30 (Europe/Berlin)"),
    (
        "every other week on friday at 17:00",
        "every 2 weeks on Friday at 17:00, starting January 5, 2026 at 9:00 (Europe/Berlin)",
    ),
    (
        "every month on the 1st and 15th at 8:00",
        "every month on the 1st and the 15th at 8:00 (Europe/Berlin)",
    ),
    (
        "yearly in december on the 24th at 18:00",
        "every year on December 24 at 18:00 (Europe/Berlin)",
    ),
    ("every day at 9am and 5pm", "every day at 9:00 and 17:00 (Europe/Berlin)"),
]


@pytest.mark.parametrize(("phrase", "expected"), ENGLISH)
def test_english_round_trips_through_describe(phrase: str, expected: str) -> None:
    schedule = parse_schedule(phrase, "Europe/Berlin", anchor=_ANCHOR)
    assert schedule.describe().text == expected
    back = parse_schedule(expected, "UTC", anchor=_ANCHOR)  # the text names its zone
    assert back.describe().text == expected
    assert back.between(_ANCHOR, _ANCHOR.replace(year=2027)) == schedule.between(
        _ANCHOR, _ANCHOR.replace(year=2027)
    )


def test_next_after_cost_does_not_grow_with_age() -> None:
    """dateutil alone needs seconds for a ten-year-old minutely rule; we restart near the
    instant. The bound is a generous fraction of that, so only the regression fails it."""
    rule = "DTSTART:20160101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=5"
    schedule = parse_schedule(rule, "UTC")
    started = time.perf_counter()
    at = schedule.next_after(datetime(2025, 12, 31, 23, 58, tzinfo=UTC))
    assert at == datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
    assert time.perf_counter() - started < 1.0


def test_cli_bad_input_is_one_line_exit_2() -> None:
    cadenza = Path(sys.executable).parent / "cadenza"
    done = subprocess.run(
        [str(cadenza), "preview", "FREQ=MONTHLY;BYMONTHDAY=32"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "BYMONTHDAY=32: day of month must be 1..31 or -31..-1" in done.stderr
    assert "Traceback" not in done.stderr
