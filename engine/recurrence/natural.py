"""Simple English to RRULE: "every weekday at 9am", "on the last Friday of every month at 18:00".

The grammar is small on purpose: every phrase maps to exactly one RRULE, and anything else is
an error that suggests the RRULE form, rather than a guess.
"""

from __future__ import annotations

import re

from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.wording import MONTH_NAMES

_DAYS = {
    "monday": "MO", "tuesday": "TU", "wednesday": "WE", "thursday": "TH",
    "friday": "FR", "saturday": "SA", "sunday": "SU",
}  # fmt: skip
_MONTHS = {name.lower(): i + 1 for i, name in enumerate(MONTH_NAMES)}
_NTH = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "last": -1,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_UNITS = {"day": "DAILY", "week": "WEEKLY", "month": "MONTHLY", "year": "YEARLY", "hour": "HOURLY"}
_ADVERBS = {
    "daily": "DAILY", "weekly": "WEEKLY", "monthly": "MONTHLY",
    "yearly": "YEARLY", "annually": "YEARLY", "hourly": "HOURLY",
}  # fmt: skip
_DAY = "|".join(_DAYS)
_TIME = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?|noon|midnight"
_HINT = "write an RRULE instead, e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9, or e.g. 'every weekday at 9am'"
_STEPS: tuple[tuple[str, str], ...] = (
    ("nth_of_month", rf"on the (first|second|third|fourth|last) ({_DAY}) of every month"),
    ("weekday", r"every weekday|on weekdays"),
    ("weekend", r"every weekend|on weekends"),
    ("adverb", r"(daily|weekly|monthly|yearly|annually|hourly)"),
    ("days", rf"every ((?:{_DAY})(?:(?:,| and) (?:{_DAY}))*)"),
    ("unit", r"every (?:(\d{1,3}|other) )?(day|week|month|year|hour)s?"),
    ("on_nth", rf"on the (first|second|third|fourth|last) ({_DAY})"),
    ("on_days", rf"on ((?:{_DAY})(?:(?:,| and) (?:{_DAY}))*)"),
    (
        "on_monthdays",
        r"on the ((?:\d{1,2}(?:st|nd|rd|th)?)(?:(?:,| and) (?:the )?(?:\d{1,2}(?:st|nd|rd|th)?))*)",
    ),
    ("in_months", r"in ((?:[a-z]+)(?:(?:,| and) [a-z]+)*)"),
    ("on_dates", r"on ((?:[a-z]+ \d{1,2})(?:(?:,| and) [a-z]+ \d{1,2})*)"),
    ("at", rf"at ((?:{_TIME})(?:(?:,| and) (?:{_TIME}))*)"),
    ("times", r"for (\d{1,6}) times"),
)


def english_to_rrule(text: str) -> str:
    """The RRULE for an English phrase; InvalidSchedule naming the part not understood."""
    rest = " ".join(text.lower().replace(" ,", ",").split())
    parts: dict[str, str] = {}
    while rest:
        for name, pattern in _STEPS:
            match = re.match(rf"(?:{pattern})(?:\s+|$)", rest)
            if match:
                _apply(name, match, parts, text)
                rest = rest[match.end() :]
                break
        else:
            position = len(text) - len(rest)
            raise InvalidSchedule(
                text, f"{rest!r}: not understood", position=max(0, position), hint=_HINT
            )
    if "FREQ" not in parts:
        raise InvalidSchedule(text, "no 'every ...' found", position=0, hint=_HINT)
    return ";".join(f"{key}={value}" for key, value in parts.items())


def _apply(name: str, match: re.Match[str], parts: dict[str, str], text: str) -> None:
    if name == "nth_of_month":
        parts.update(FREQ="MONTHLY", BYDAY=f"{_NTH[match[1]]}{_DAYS[match[2]]}")
    elif name == "weekday":
        parts.update(FREQ="WEEKLY", BYDAY="MO,TU,WE,TH,FR")
    elif name == "weekend":
        parts.update(FREQ="WEEKLY", BYDAY="SA,SU")
    elif name == "adverb":
        parts["FREQ"] = _ADVERBS[match[1]]
    elif name in ("days", "on_days"):
        parts.setdefault("FREQ", "WEEKLY")
        parts["BYDAY"] = ",".join(_DAYS[d] for d in re.split(r",\s*|\s+and\s+", match[1]))
    elif name == "unit":
        parts["FREQ"] = _UNITS[match[2]]
        interval = "2" if match[1] == "other" else match[1]
        if interval and int(interval) > 1:
            parts["INTERVAL"] = interval
    elif name == "on_nth":
        parts["BYDAY"] = f"{_NTH[match[1]]}{_DAYS[match[2]]}"
    elif name == "on_monthdays":
        parts["BYMONTHDAY"] = ",".join(
            re.sub(r"\D", "", d) for d in re.split(r",\s*|\s+and\s+", match[1])
        )
    elif name == "in_months":
        parts["BYMONTH"] = ",".join(
            str(_month(text, m)) for m in re.split(r",\s*|\s+and\s+", match[1])
        )
    elif name == "on_dates":
        _dates(text, match[1], parts)
    elif name == "at":
        _times(text, match[1], parts)
    else:
        parts["COUNT"] = match[1]


def _month(text: str, name: str) -> int:
    if name not in _MONTHS:
        raise InvalidSchedule(text, f"{name!r}: not a month name", hint=_HINT)
    return _MONTHS[name]


def _dates(text: str, spec: str, parts: dict[str, str]) -> None:
    """'on January 1 and July 1': months with one shared day of month."""
    pairs = [item.split() for item in re.split(r",\s*|\s+and\s+", spec)]
    days = {day for _, day in pairs}
    if len(days) > 1:
        raise InvalidSchedule(text, f"on {spec}: dates with different days", hint=_HINT)
    parts["BYMONTH"] = ",".join(str(_month(text, month)) for month, _ in pairs)
    parts["BYMONTHDAY"] = days.pop()


def _times(text: str, spec: str, parts: dict[str, str]) -> None:
    hours, minutes = [], set()
    for item in re.split(r",\s*|\s+and\s+", spec):
        hour, minute = _clock(text, item.strip())
        hours.append(str(hour))
        minutes.add(minute)
    if len(minutes) > 1:
        raise InvalidSchedule(text, f"at {spec}: times with different minutes", hint=_HINT)
    parts.update(BYHOUR=",".join(hours), BYMINUTE=str(minutes.pop()))


def _clock(text: str, item: str) -> tuple[int, int]:
    if item in ("noon", "midnight"):
        return (12 if item == "noon" else 0), 0
    match = re.fullmatch(_TIME, item)
    assert match is not None
    hour, minute = int(match[1]), int(match[2] or 0)
    if match[3]:
        if not 1 <= hour <= 12:
            raise InvalidSchedule(text, f"{item}: hour must be 1..12 with am/pm", hint=_HINT)
        hour = hour % 12 + (12 if match[3] == "pm" else 0)
    if hour > 23 or minute > 59:
        raise InvalidSchedule(text, f"{item}: not a time of day", hint=_HINT)
    return hour, minute
