"""Benchmark: preview of 10 occurrences for typical rules, and rejection of pathological ones.

Run with `python -m bench.preview`; prints median and p99 in milliseconds per case.
"""

from __future__ import annotations

import statistics
import time
from datetime import UTC, datetime

from engine.recurrence import InvalidSchedule, parse_schedule, preview

_AFTER = datetime(2026, 6, 1, tzinfo=UTC)
TYPICAL = [
    ("weekdays 9:00 Berlin", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9", "Europe/Berlin"),
    ("last Monday monthly", "FREQ=MONTHLY;BYDAY=-1MO;BYHOUR=9", "UTC"),
    (
        "business hours hourly, 10 years old",
        "DTSTART:20160101T090000Z RRULE:FREQ=HOURLY;BYHOUR=9,10,11,12,13,14,15,16;"
        "BYDAY=MO,TU,WE,TH,FR",
        "UTC",
    ),
    (
        "every 5 minutes, 10 years old",
        "DTSTART:20160601T000000Z RRULE:FREQ=MINUTELY;INTERVAL=5",
        "UTC",
    ),
    ("cron weekdays", "30 9 * * 1-5", "America/New_York"),
    ("interval 15m", "every 15m", "UTC"),
    ("english", "every 2 weeks on Monday and Thursday at 17:30", "Europe/London"),
]
PATHOLOGICAL = [
    ("yearly Feb 30", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"),
    ("minutely Feb 30", "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30"),
    ("sixth Monday", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6"),
    ("cron Feb 31", "0 9 31 2 *"),
]


def _time_ms(action: object, rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def _preview_case(text: str, zone: str) -> None:
    # A fresh anchor each round defeats parse_schedule's cache: parse + preview are measured.
    anchor = datetime(2026, 1, 1, tzinfo=UTC).replace(microsecond=_preview_case.round)  # type: ignore[attr-defined]
    _preview_case.round += 1  # type: ignore[attr-defined]
    preview(parse_schedule(text, zone, anchor=anchor), _AFTER, 10)


_preview_case.round = 0  # type: ignore[attr-defined]


def _reject_case(text: str) -> None:
    try:
        parse_schedule(text, "UTC", anchor=datetime(2026, 1, 1, tzinfo=UTC))
    except InvalidSchedule:
        return
    raise AssertionError(f"{text} was accepted")


def main() -> None:
    print("preview of 10 occurrences (parse + preview), ms: median p99")
    for name, text, zone in TYPICAL:
        median, p99 = _time_ms(lambda t=text, z=zone: _preview_case(t, z), 200)
        print(f"  {name:40s} {median:7.2f} {p99:7.2f}")
    print("pathological rule rejected, ms: median p99")
    for name, text in PATHOLOGICAL:
        from engine.recurrence.parse import _parse

        median, p99 = _time_ms(lambda t=text: (_parse.cache_clear(), _reject_case(t)), 30)
        print(f"  {name:40s} {median:7.2f} {p99:7.2f}")


if __name__ == "__main__":
    main()
