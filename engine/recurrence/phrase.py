"""What English says about a schedule, part by part: the common ground of `describe` (rule to
words) and `natural` (words to rule).

A `Phrase` is one RRULE with every part that the words name; a `Sentence` adds what a whole
recurrence has (DTSTART, zone, extra and excluded dates). Describing a rule builds a Sentence
from the rule, reading English builds one from the words, and both go through the same
Sentence -> RFC 5545 text, so a text read back names the same parts as the rule it describes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from dateutil import rrule as du
from dateutil.relativedelta import relativedelta

from engine.recurrence.rrule_parts import FREQS, WEEKDAYS

FREQ_NAMES = {value: name for name, value in FREQS.items()}


@dataclass(frozen=True)
class Phrase:
    """One RRULE as English sees it; an empty tuple or None is a part the words leave out."""

    freq: int
    interval: int = 1
    weekdays: tuple[int, ...] = ()
    nth_weekdays: tuple[tuple[int, int], ...] = ()
    monthdays: tuple[int, ...] = ()
    yeardays: tuple[int, ...] = ()
    weeks: tuple[int, ...] = ()
    months: tuple[int, ...] = ()
    hours: tuple[int, ...] = ()
    minutes: tuple[int, ...] = ()
    seconds: tuple[int, ...] = ()
    setpos: tuple[int, ...] = ()
    wkst: int = 0
    count: int | None = None
    until: datetime | None = None

    def rrule(self) -> str:
        """The RRULE value (`FREQ=...;...`) naming exactly these parts."""
        parts = [f"FREQ={FREQ_NAMES[self.freq]}"]
        if self.interval != 1:
            parts.append(f"INTERVAL={self.interval}")
        days = [WEEKDAYS[d] for d in self.weekdays]
        days += [f"{n}{WEEKDAYS[d]}" for n, d in self.nth_weekdays]
        for name, values in (
            ("BYMONTH", self.months), ("BYWEEKNO", self.weeks), ("BYYEARDAY", self.yeardays),
            ("BYMONTHDAY", self.monthdays), ("BYDAY", days), ("BYHOUR", self.hours),
            ("BYMINUTE", self.minutes), ("BYSECOND", self.seconds), ("BYSETPOS", self.setpos),
        ):  # fmt: skip
            if values:
                parts.append(f"{name}={','.join(map(str, values))}")
        if self.wkst:
            parts.append(f"WKST={WEEKDAYS[self.wkst]}")
        if self.count is not None:
            parts.append(f"COUNT={self.count}")
        if self.until is not None:
            parts.append(f"UNTIL={self.until:%Y%m%dT%H%M%S}")
        return ";".join(parts)


@dataclass(frozen=True)
class Sentence:
    """A recurrence in words: its rules, DTSTART (None: the anchor), zone, RDATE and EXDATE
    (wall times in the zone)."""

    rules: tuple[Phrase, ...]
    start: datetime | None = None
    zone: str | None = None
    rdates: tuple[datetime, ...] = ()
    exdates: tuple[datetime, ...] = field(default=())

    def block(self, timezone: str) -> str:
        """The RFC 5545 text of the sentence, in its own zone or else `timezone`."""
        zone = self.zone or timezone
        lines = [f"DTSTART;TZID={zone}:{self.start:%Y%m%dT%H%M%S}"] if self.start else []
        lines += [f"RRULE:{rule.rrule()}" for rule in self.rules]
        for name, values in (("RDATE", self.rdates), ("EXDATE", self.exdates)):
            if values:
                stamps = ",".join(f"{value:%Y%m%dT%H%M%S}" for value in values)
                lines.append(f"{name};TZID={zone}:{stamps}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Elapsed:
    """An interval of elapsed time ('every 90 minutes'), from `start` or the anchor."""

    step: timedelta
    start: datetime | None
    zone: str | None


@dataclass(frozen=True)
class OnceAt:
    """A single wall time ('once, on March 28, 2027 at 3:30')."""

    wall: datetime
    zone: str | None


def phrase_of(kwargs: dict[str, Any], count: int | None, until: datetime | None) -> Phrase:
    """The phrase of a rule from its dateutil keywords (explicit defaults written out)."""
    weekdays = kwargs.get("byweekday") or ()
    return Phrase(
        freq=kwargs["freq"],
        interval=kwargs["interval"],
        weekdays=tuple(sorted({d.weekday for d in weekdays if not d.n})),
        nth_weekdays=tuple(sorted({(d.n, d.weekday) for d in weekdays if d.n}, key=_nth_order)),
        monthdays=tuple(sorted(set(kwargs.get("bymonthday") or ()), key=day_order)),
        yeardays=tuple(sorted(set(kwargs.get("byyearday") or ()), key=day_order)),
        weeks=tuple(sorted(set(kwargs.get("byweekno") or ()), key=day_order)),
        months=tuple(sorted(set(kwargs.get("bymonth") or ()))),
        hours=_sorted(kwargs.get("byhour")),
        minutes=_sorted(kwargs.get("byminute")),
        seconds=_sorted(kwargs.get("bysecond")),
        setpos=tuple(sorted(set(kwargs.get("bysetpos") or ()), key=day_order)),
        wkst=kwargs.get("wkst", 0),
        count=count,
        until=until,
    )


def day_order(value: int) -> int:
    """Positive values first, ascending, then negative ones from -1 down (1, 15, -1, -2)."""
    return value if value > 0 else 10_000 - value


def _nth_order(item: tuple[int, int]) -> tuple[int, int]:
    return day_order(item[0]), item[1]


def _sorted(values: object) -> tuple[int, ...]:
    return tuple(sorted(set(values))) if values else ()  # type: ignore[call-overload]


#: How many phases of an INTERVAL are tried at most (one per month of a year, say).
MAX_PHASES = 12
_PHASE_STEP = {
    du.YEARLY: relativedelta(years=1), du.MONTHLY: relativedelta(months=1),
    du.WEEKLY: relativedelta(weeks=1), du.DAILY: relativedelta(days=1),
}  # fmt: skip


def reading_phases(block: str, anchor: datetime) -> list[datetime]:
    """Anchors at the other phases of an interval rule written without DTSTART whose filters
    may miss some phases (none when the text has a start, no filters, or no interval)."""
    if "DTSTART" in block:
        return []
    phases: set[datetime] = set()
    for line in block.split("\n"):
        if not line.startswith("RRULE:"):
            continue
        rule = dict(part.split("=", 1) for part in line.removeprefix("RRULE:").split(";"))
        interval = int(rule.get("INTERVAL", "1"))
        freq = FREQS[rule["FREQ"]]
        sub_daily = freq >= du.HOURLY
        if sub_daily and 86_400 % (_UNIT_S[freq] * interval) == 0:
            continue  # a grid from midnight is the same every day
        filters = [name for name in rule if name.startswith("BY")]
        if interval > 1 and any(sub_daily or name not in _TIME_PARTS for name in filters):
            step = _PHASE_STEP.get(freq, relativedelta(days=1))
            phases |= {anchor + step * k for k in range(1, min(interval, MAX_PHASES))}
    return sorted(phases)


_TIME_PARTS = ("BYHOUR", "BYMINUTE", "BYSECOND")
_UNIT_S = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}
