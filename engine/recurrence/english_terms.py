"""The words of English schedules, as patterns and as values: weekdays, months, ordinals,
times of day, dates, and lists of them ("Monday, Wednesday and Friday", "the 10th through
15th"). `natural` builds its phrases from these; `describe` writes only what they read.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time

from engine.recurrence.wording import MONTH_NAMES, ORDINAL_WORDS, WEEKDAY_NAMES

WEEKDAY = {name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)}
WEEKDAY |= {f"{name}s": i for name, i in list(WEEKDAY.items())}
WEEKDAY |= {name[:3]: i for name, i in list(WEEKDAY.items())}
WEEKDAY |= {"tues": 1, "thur": 3, "thurs": 3}
MONTH = {name.lower(): i + 1 for i, name in enumerate(MONTH_NAMES)}
MONTH |= {name[:3]: i for name, i in list(MONTH.items())} | {"sept": 9}
_WORDS = {word: n for n, word in ORDINAL_WORDS.items()}

WD = "(?:" + "|".join(sorted(WEEKDAY, key=len, reverse=True)) + r")\b"
MON = "(?:" + "|".join(sorted(MONTH, key=len, reverse=True)) + r")\b"
NTH = r"(?:(?:\d{1,3}(?:st|nd|rd|th)|first|second|third|fourth|fifth)(?:\s+(?:to\s+)?last)?|last)"
CLOCK = r"(?:\d{1,2}(?::\d{2}){0,2}(?:\s*(?:am|pm))?|noon|midnight)"
#: 'through' (or 'to', but not the 'to' of '2nd to last') between the ends of a range.
RANGE = r"\s+(?:through|to(?!\s+last\b)|-)\s+"
DATE = rf"{MON}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
DATE_TIME = rf"{DATE}(?:\s+at\s+{CLOCK})?"
#: Separators inside a list: ', ', ' and ', ', and '.
SEP = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"


def listed(item: str) -> str:
    """A pattern for one or more `item`s, with 'a through b' ranges."""
    one = rf"{item}(?:{RANGE}{item})?"
    return rf"{one}(?:{SEP}{one})*"


def split(text: str) -> list[str]:
    return [part for part in re.split(SEP, text.strip()) if part]


def date_times(text: str) -> list[str]:
    """The dates of a list of them (their own commas are not separators)."""
    return [match.group() for match in re.finditer(DATE_TIME, text)]


def values(text: str, read: object) -> list[int]:
    """The values of a list, ranges expanded ('monday through friday' -> 0..4)."""
    out: list[int] = []
    for item in split(text):
        ends = re.split(RANGE, item)
        first, last = read(ends[0]), read(ends[-1])  # type: ignore[operator]
        out.extend(_span(first, last, read))
    return out


def _span(first: int, last: int, read: object) -> list[int]:
    if last >= first:
        return list(range(first, last + 1))
    if read is weekday:
        return list(range(first, 7)) + list(range(0, last + 1))
    return list(range(first, last - 1, -1))


def weekday(word: str) -> int:
    return WEEKDAY[word.strip()]


def month(word: str) -> int:
    return MONTH[word.strip()]


def nth(word: str) -> int:
    """'first' 1, '3rd' 3, 'last' -1, '2nd to last' -2, '4th last' -4."""
    word = word.strip()
    negative = word.endswith("last") and word != "last"
    head = re.sub(r"\s+(?:to\s+)?last$", "", word)
    number = _WORDS[head] if head in _WORDS else int(re.sub(r"\D", "", head))
    return -number if negative else number


def clock(text: str) -> time:
    """'9am' 9:00, '17:30', '9:00:15', 'noon', 'midnight'; ValueError when not a time."""
    text = text.strip()
    if text in ("noon", "midnight"):
        return time(12 if text == "noon" else 0)
    match = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?", text)
    if match is None:
        raise ValueError(text)
    hour, minute, second = (int(g or 0) for g in match.groups()[:3])
    if match[4]:
        if not 1 <= hour <= 12:
            raise ValueError(f"{text}: with am/pm the hour is 1..12")
        hour = hour % 12 + (12 if match[4] == "pm" else 0)
    return time(hour, minute, second)


def day(text: str) -> date:
    """'january 5, 2026'."""
    match = re.fullmatch(rf"({MON})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})", text.strip())
    if match is None:
        raise ValueError(text)
    return date(int(match[3]), month(match[1]), int(match[2]))


def day_time(text: str, end_of_day: bool = False) -> datetime:
    """'january 5, 2026 at 9:00'; without a time, midnight (or 23:59:59 for an end)."""
    head, _, at = text.partition(" at ")
    moment = clock(at) if at else (time(23, 59, 59) if end_of_day else time())
    return datetime.combine(day(head), moment)
