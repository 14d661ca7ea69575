"""Benchmark: preview of 10 occurrences for typical rules, and rejection of pathological ones.

Run with `python -m bench.preview`; prints median and p99 in milliseconds per case.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import count

from engine.recurrence import InvalidSchedule, parse_schedule, preview

_AFTER = datetime(2026, 6, 1, tzinfo=UTC)
TYPICAL = [
    ("weekdays 9:00 Berlin", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9", "Europe/Berlin"),
    ("last Monday monthly", "FREQ=MONTHLY;BYDAY=-1MO;BYHOUR=9", "UTC"),
    (
        "business hours hourly, ~10 years old",
        "DTSTART:20160701T090000Z RRULE:FREQ=HOURLY;BYHOUR=9,10,11,12,13,14,15,16;"
        "BYDAY=MO,TU,WE,TH,FR",
        "UTC",
    ),
    (
        "every 5 minutes, 10 years old",
        "DTSTART:20160701T000000Z RRULE:FREQ=MINUTELY;INTERVAL=5",
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


def _time_ms(action: Callable[[], object], rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.99) - 1)]


_ROUNDS = count()


def _preview_case(text: str, zone: str) -> None:
    """Parse + preview; a fresh anchor each round defeats parse_schedule's cache."""
    anchor = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(microseconds=next(_ROUNDS))
    preview(parse_schedule(text, zone, anchor=anchor), _AFTER, 10)


def _reject_case(text: str) -> None:
    """Rejections are never cached (lru_cache does not keep exceptions)."""
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
    print("next_after on a parsed schedule (the engine's per-run call), ms: median p99")
    for name, text, zone in TYPICAL:
        schedule = parse_schedule(text, zone, anchor=datetime(2026, 1, 1, tzinfo=UTC))
        median, p99 = _time_ms(lambda s=schedule: s.next_after(_AFTER), 200)
        print(f"  {name:40s} {median:7.2f} {p99:7.2f}")
    print("pathological rule rejected, ms: median p99")
    for name, text in PATHOLOGICAL:
        median, p99 = _time_ms(lambda t=text: _reject_case(t), 30)
        print(f"  {name:40s} {median:7.2f} {p99:7.2f}")


if __name__ == "__main__":
    main()
