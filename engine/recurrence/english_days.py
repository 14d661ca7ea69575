"""Reading the day part of an English schedule: "on Monday and the last Friday", "on the 1st,
15th and last day", "on Friday the 13th", "on Saturday when it is the 7th through 13th",
"on day 1 and 100 of the year", "on January 1 and July 1", and "on the 1st or on Monday"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.recurrence import english_terms as t

_ITEM = re.compile(
    rf"(?P<every>every day of the week)"
    rf"|(?P<nthday>the\s+(?P<n1>{t.NTH})\s+(?P<wd1>{t.WD}))"
    rf"|(?P<wd>{t.WD})(?:\s+(?:through|to)\s+(?P<wd2>{t.WD}))?(?:\s+the\s+(?P<dom>\d{{1,2}})(?:st|nd|rd|th))?"
    rf"|(?P<yday>day\s+(?P<y>\d{{1,3}})(?:\s+(?:through|to)\s+(?P<y2>\d{{1,3}}))?)"
    rf"|(?P<mday>(?:the\s+)?(?P<n2>{t.NTH})(?:\s+day)?(?:\s+(?:through|to)\s+(?:the\s+)?(?P<n3>{t.NTH}))?)"
)
_MONTHDAY = rf"(?:the\s+)?{t.NTH}(?:\s+day)?"
_WHEN = re.compile(rf"\s+when it is\s+({t.listed(_MONTHDAY)})")


@dataclass
class Days:
    """The days one 'on ...' phrase names (each list in the order written)."""

    weekdays: list[int] = field(default_factory=list)
    nth: list[tuple[int, int]] = field(default_factory=list)
    monthdays: list[int] = field(default_factory=list)
    yeardays: list[int] = field(default_factory=list)


def read_on(text: str) -> tuple[list[Days], int] | None:
    """The days of an 'on ...' phrase at the start of `text` (its alternatives joined by
    ' or on '), and how many characters it used; None when `text` is no such phrase."""
    alternatives: list[Days] = []
    position = 0
    while True:
        head = re.match(r"on\s+", text[position:])
        if head is None:
            return None if not alternatives else (alternatives, position)
        found = _read_items(text, position + head.end())
        if found is None:
            return None if not alternatives else (alternatives, position)
        days, position = found
        alternatives.append(days)
        more = re.match(r"\s+or\s+(?=on\s)", text[position:])
        if more is None:
            return alternatives, position
        position += more.end()


def _read_items(text: str, position: int) -> tuple[Days, int] | None:
    days = Days()
    count = 0
    while True:
        match = _ITEM.match(text, position)
        if match is None or not match.group().strip():
            break
        _add(days, match)
        count, position = count + 1, match.end()
        separator = re.match(t.SEP, text[position:])
        if separator is None or not _ITEM.match(text, position + separator.end()):
            break
        position += separator.end()
    if not count:
        return None
    when = _WHEN.match(text, position)
    if when is not None:
        days.monthdays += t.values(re.sub(r"the\s+|\s+day", "", when[1]), t.nth)
        position = when.end()
    month = re.match(r"\s+of the month\b", text[position:])
    if month is not None:
        position += month.end()
    year = re.match(r"\s+of the year\b", text[position:])
    if year is not None:
        days.yeardays += days.monthdays
        days.monthdays = []
        position += year.end()
    return days, position


def _add(days: Days, match: re.Match[str]) -> None:
    if match["every"]:
        days.weekdays += list(range(7))
    elif match["nthday"]:
        days.nth.append((t.nth(match["n1"]), t.weekday(match["wd1"])))
    elif match["wd"]:
        last = match["wd2"] or match["wd"]
        days.weekdays += t.values(f"{match['wd']} through {last}", t.weekday)
        if match["dom"]:
            days.monthdays.append(int(match["dom"]))
    elif match["yday"]:
        days.yeardays += list(range(int(match["y"]), int(match["y2"] or match["y"]) + 1))
    else:
        days.monthdays += t.values(f"{match['n2']} through {match['n3'] or match['n2']}", t.nth)
