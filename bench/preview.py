"""Benchmark: preview of 10 occurrences for typical rules, and rejection of pathological ones.

Run with `python -m bench.preview [--json] [--rounds N]`; prints median and p99 in
milliseconds per case, as a table or (with `--json`, for the suite's preview scenario) as
`{"rounds": N, "reject_rounds": M, "figures": [{"section", "case", "median_ms", "p99_ms"}]}`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import count

from bench.stats import percentile
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
    return statistics.median(samples), percentile(samples, 99)


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


#: The sections of the output, in order; each is a heading and the cases timed under it.
PREVIEW = "preview of 10 occurrences"
NEXT_AFTER = "next_after on a parsed schedule"
REJECTED = "pathological rule rejected"
_HEADINGS = {
    PREVIEW: "preview of 10 occurrences (parse + preview), ms: median p99",
    NEXT_AFTER: "next_after on a parsed schedule (the engine's per-run call), ms: median p99",
    REJECTED: "pathological rule rejected, ms: median p99",
}


def measure(rounds: int = 200, reject_rounds: int = 30) -> list[dict[str, object]]:
    """One row per (section, case): its median and p99 in ms over `rounds` timed calls."""
    rows: list[dict[str, object]] = []

    def timed(section: str, case: str, action: Callable[[], object], n: int) -> None:
        median_ms, p99_ms = _time_ms(action, n)
        rows.append({"section": section, "case": case, "median_ms": median_ms, "p99_ms": p99_ms})

    for name, text, zone in TYPICAL:
        timed(PREVIEW, name, lambda t=text, z=zone: _preview_case(t, z), rounds)
    for name, text, zone in TYPICAL:
        schedule = parse_schedule(text, zone, anchor=datetime(2026, 1, 1, tzinfo=UTC))
        timed(NEXT_AFTER, name, lambda s=schedule: s.next_after(_AFTER), rounds)
    for name, text in PATHOLOGICAL:
        timed(REJECTED, name, lambda t=text: _reject_case(t), reject_rounds)
    return rows


def _print_table(rows: list[dict[str, object]]) -> None:
    section = None
    for row in rows:
        if row["section"] != section:
            section = str(row["section"])
            print(_HEADINGS[section])
        print(f"  {row['case']!s:40s} {row['median_ms']:7.2f} {row['p99_ms']:7.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.preview", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=200, help="timed calls per typical case")
    args = parser.parse_args(argv)
    reject_rounds = min(args.rounds, 30)
    rows = measure(args.rounds, reject_rounds)
    if args.json:
        print(json.dumps({"rounds": args.rounds, "reject_rounds": reject_rounds, "figures": rows}))
    else:
        _print_table(rows)


if __name__ == "__main__":
    main()
