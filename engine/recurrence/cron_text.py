"""Plain-English text of cron expressions ("every 10 minutes by the clock, between 09:00 and
17:59, Monday through Friday"), in words `natural` reads back.

Steps are said as what they do: `*/10` is every 10 minutes, but `*/45` runs at :00 and :45, so
it is said so. The text is complete when reading it back gives the same runs: not for `W`
(nearest weekday), and not in a zone whose DST changes touch the expression's times, where
cron's own DST rule (a skipped 02:30 runs at 03:00) differs from an RRULE's.
"""

from __future__ import annotations

import bisect
from datetime import datetime, timedelta, tzinfo
from itertools import pairwise
from typing import Any

from engine.recurrence import wording as w
from engine.recurrence.cron_days import expand
from engine.recurrence.schedule import Description
from engine.recurrence.timeset import TimeSet
from engine.recurrence.transitions import transitions

_DOW = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MAX_TIMES = 12


def describe_cron(expression: str, zone_name: str, dst_free: bool) -> Description:
    """Text for a five-field expression; parts the words cannot carry make it incomplete."""
    fields = expression.split()
    day_or = not (fields[2].startswith(("*", "?")) or fields[4].startswith(("*", "?")))
    (minutes, hours, days, months, weekdays), nth = expand(expression)
    left_out = [] if dst_free else ["DST changes follow Vixie cron (a skipped 02:30 runs at 03:00)"]
    parts = [_time(minutes, hours)]
    if nth and parts[0].startswith("every"):
        left_out.append("an nth weekday with runs through the day")
    day_text = _month_days(days, fields[2], left_out)
    week_text = _weekdays(weekdays, nth)
    joined = [text for text in (day_text, week_text) if text]
    parts.append(" or ".join(_with_on(joined)) if day_or else ", ".join(joined))
    if months != ["*"]:
        parts.append("in " + w.join(w.ranged(sorted(months), lambda m: w.MONTH_NAMES[m - 1])))
    text = ", ".join(part for part in parts if part) + " " + w.zone_phrase(zone_name)
    if left_out:
        text += " " + w.verbatim(left_out)
    return Description(text, not left_out)


def cron_times(expression: str) -> TimeSet:
    """The expression's times of day (hours x minutes, second 0)."""
    (minutes, hours, *_), _ = expand(expression)
    return TimeSet.of(_all(hours, 24), _all(minutes, 60), (0,))


def is_dst_free(expression: str, zone: tzinfo, start: datetime, end: datetime) -> bool:
    """True when no DST change between `start` and `end` skips or repeats one of the
    expression's times of day (then cron's DST rule and an RRULE's agree)."""
    times = cron_times(expression)
    seconds = sorted(times.at(i) for i in range(len(times)))
    span = start.replace(tzinfo=zone) - timedelta(days=1), end.replace(tzinfo=zone)
    for change in transitions(zone, *span):
        low, high = change.wall_start, change.wall_end
        day = datetime.combine(low.date(), datetime.min.time())
        while day < high:
            lo = max(0, int((low - day).total_seconds()))
            hi = min(86_400, int((high - day).total_seconds()))
            if bisect.bisect_left(seconds, hi) > bisect.bisect_left(seconds, lo):
                return False
            day += timedelta(days=1)
    return True


def _time(minutes: list[object], hours: list[object]) -> str:
    hour_list = _all(hours, 24)
    step = _step(minutes)
    if minutes == ["*"]:
        lead = "every minute"
    elif step is not None:
        lead = f"every {step} minutes {w.BY_THE_CLOCK}"
    elif hours != ["*"] and len(minutes) * len(hour_list) <= _MAX_TIMES:
        times = [f"{h:02d}:{m:02d}" for h in hour_list for m in sorted(minutes)]  # type: ignore[type-var]
        return "at " + w.join(times)
    else:
        lead = "every hour at " + w.join([f":{m:02d}" for m in sorted(minutes)])  # type: ignore[type-var]
    return lead + _hours(hours)


def _hours(hours: list[Any]) -> str:
    if hours == ["*"]:
        return ""
    values = sorted(hours)  # type: ignore[type-var]
    if values == list(range(values[0], values[-1] + 1)):
        return f", between {values[0]:02d}:00 and {values[-1]:02d}:59"
    return ", during the hours " + w.join(w.ranged(values, str))


def _step(minutes: list[Any]) -> int | None:
    """The step of minutes 0, n, 2n ... when n divides the hour (then it is 'every n minutes')."""
    if minutes == ["*"] or len(minutes) < 2 or minutes[0] != 0:
        return None
    gaps = {b - a for a, b in pairwise(minutes)}  # type: ignore[operator]
    step = gaps.pop() if len(gaps) == 1 else None
    return step if step is not None and 60 % step == 0 and len(minutes) == 60 // step else None


def _month_days(days: list[Any], field: str, left_out: list[str]) -> str:
    if days == ["*"]:
        return ""
    numbers = sorted(d for d in days if d != "l")  # type: ignore[type-var]
    named = w.ranged(numbers, lambda d: f"the {w.ordinal(d)}") + (
        ["the last day"] if "l" in days else []
    )
    if "W" in field.upper():
        left_out.append(f"day-of-month {field}: the weekday nearest that day")
        return "on the weekday nearest " + w.join(named) + " of the month"
    return "on " + w.join(named) + " of the month"


def _weekdays(weekdays: list[object], nth: dict[int, set[int]]) -> str:
    if weekdays == ["*"]:
        return ""
    values = sorted({int(d) % 7 for d in weekdays})  # type: ignore[call-overload]
    numbered = [
        f"the {w.nth_word(n)} {_DOW[d]}" for d in values if d in nth for n in sorted(nth[d])
    ]
    plain = [(d - 1) % 7 for d in values if d not in nth]
    names = [w.WEEKDAY_NAMES[d] for d in sorted(plain)]
    if numbered:
        return "on " + w.join(names + numbered) + " of the month"
    if len(plain) >= 3 and sorted(plain) == list(range(plain[0], plain[0] + len(plain))):
        return f"{names[0]} through {names[-1]}"
    return "on " + w.join(names)


def _with_on(texts: list[str]) -> list[str]:
    return [text if text.startswith("on ") else f"on {text}" for text in texts]


def _all(values: list[Any], size: int) -> list[int]:
    return list(range(size)) if values == ["*"] else sorted(values)  # type: ignore[type-var]
