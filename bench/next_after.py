"""Benchmark: `next_after` of second-, minute- and hour-grained rules, beside the cheapest form
of the same cadence (`every 17s`) and APScheduler's triggers.

Run with `python -m bench.next_after [--json] [--rounds N]`; prints the median and p99 in
milliseconds of one `next_after` call (the engine's per-run call) per case and system, as a
table or (with `--json`, for the suite's next_after scenario) as
`{"rounds": N, "figures": [{"case", "system", "median_ms", "p99_ms"}]}`. The query instant
moves by a prime number of seconds each round, so no round repeats another's work.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bench.stats import percentile
from engine.recurrence import ScheduleLimits, parse_schedule

OURS = "cadenza"
APSCHEDULER = "apscheduler"
_LIMITS = ScheduleLimits(min_interval_s=1, allow_secondly=True)
_ANCHOR = datetime(2026, 1, 1, tzinfo=UTC)
#: (case, our schedule, zone, the APScheduler trigger of the same cadence or None)
CASES: list[tuple[str, str, str, Callable[[], object] | None]] = [
    (
        "SECONDLY;INTERVAL=17",
        "FREQ=SECONDLY;INTERVAL=17",
        "UTC",
        lambda: IntervalTrigger(seconds=17, start_date=_ANCHOR),
    ),
    ("every 17s (elapsed)", "every 17s", "UTC", None),
    ("SECONDLY", "FREQ=SECONDLY", "UTC", lambda: IntervalTrigger(seconds=1, start_date=_ANCHOR)),
    ("SECONDLY;INTERVAL=17 Berlin", "FREQ=SECONDLY;INTERVAL=17", "Europe/Berlin", None),
    (
        "SECONDLY;BYHOUR=9;BYMINUTE=0,30",
        "FREQ=SECONDLY;BYHOUR=9;BYMINUTE=0,30",
        "UTC",
        lambda: CronTrigger(second="*", minute="0,30", hour="9", timezone="UTC"),
    ),
    (
        "MINUTELY;INTERVAL=5",
        "FREQ=MINUTELY;INTERVAL=5",
        "UTC",
        lambda: CronTrigger(minute="*/5", timezone="UTC"),
    ),
    (
        "MINUTELY;INTERVAL=5, DTSTART 2015",
        "DTSTART:20150101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=5",
        "UTC",
        None,
    ),
    (
        "HOURLY;BYHOUR=9-16;BYDAY=MO-FR",
        "FREQ=HOURLY;BYHOUR=9,10,11,12,13,14,15,16;BYDAY=MO,TU,WE,TH,FR",
        "UTC",
        lambda: CronTrigger(minute="0", hour="9-16", day_of_week="mon-fri", timezone="UTC"),
    ),
]


def _time_ms(call: Callable[[datetime], object], rounds: int) -> tuple[float, float]:
    samples = []
    for round_ in range(rounds):
        instant = datetime(2026, 6, 1, 10, tzinfo=UTC) + timedelta(seconds=round_ * 7919)
        started = time.perf_counter()
        call(instant)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), percentile(samples, 99)


def measure(rounds: int = 2000) -> list[dict[str, object]]:
    """One row per (case, system): median and p99 in ms of one next-occurrence call."""
    rows: list[dict[str, object]] = []
    for case, text, zone, trigger in CASES:
        schedule = parse_schedule(text, zone, anchor=_ANCHOR, limits=_LIMITS)
        median_ms, p99_ms = _time_ms(schedule.next_after, rounds)
        rows.append({"case": case, "system": OURS, "median_ms": median_ms, "p99_ms": p99_ms})
        if trigger is not None:
            peer = trigger()
            median_ms, p99_ms = _time_ms(lambda at, p=peer: p.get_next_fire_time(at, at), rounds)  # type: ignore[attr-defined]
            rows.append(
                {"case": case, "system": APSCHEDULER, "median_ms": median_ms, "p99_ms": p99_ms}
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.next_after", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=2000, help="timed calls per case")
    args = parser.parse_args(argv)
    rows = measure(args.rounds)
    if args.json:
        print(json.dumps({"rounds": args.rounds, "figures": rows}))
        return
    print("next_after (one call), ms: median p99")
    for row in rows:
        name, system = f"{row['case']!s:36s}", f"{row['system']!s:12s}"
        print(f"  {name} {system} {row['median_ms']:8.4f} {row['p99_ms']:8.4f}")


if __name__ == "__main__":
    main()
