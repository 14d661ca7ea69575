"""Validation of one RRULE value (`FREQ=...;BYDAY=...`) into dateutil keyword arguments.

dateutil accepts or silently ignores much that RFC 5545 forbids and reports the rest with
generic messages; this layer names the offending part (`BYMONTHDAY=32: ...`) and its position,
quoting at most QUOTE_CHARS characters of it. Repeated values count once (a list is as long as
the schedule text allows, MAX_TEXT_CHARS); COUNT and INTERVAL have at most MAX_NUMBER_DIGITS.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dateutil import rrule as du

from engine.recurrence.errors import InvalidSchedule, named_value, quote

FREQS: dict[str, int] = {
    "YEARLY": du.YEARLY,
    "MONTHLY": du.MONTHLY,
    "WEEKLY": du.WEEKLY,
    "DAILY": du.DAILY,
    "HOURLY": du.HOURLY,
    "MINUTELY": du.MINUTELY,
    "SECONDLY": du.SECONDLY,
}
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_BYDAY = re.compile(r"([+-]?)(\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)")
#: part name -> (dateutil keyword, lowest, highest, whether negatives are allowed, meaning)
_INT_PARTS: dict[str, tuple[str, int, int, bool, str]] = {
    "BYSECOND": ("bysecond", 0, 59, False, "second must be 0..59"),
    "BYMINUTE": ("byminute", 0, 59, False, "minute must be 0..59"),
    "BYHOUR": ("byhour", 0, 23, False, "hour must be 0..23"),
    "BYMONTHDAY": ("bymonthday", 1, 31, True, "day of month must be 1..31 or -31..-1"),
    "BYYEARDAY": ("byyearday", 1, 366, True, "day of year must be 1..366 or -366..-1"),
    "BYWEEKNO": ("byweekno", 1, 53, True, "week number must be 1..53 or -53..-1"),
    "BYMONTH": ("bymonth", 1, 12, False, "month must be 1..12"),
    "BYSETPOS": ("bysetpos", 1, 366, True, "set position must be 1..366 or -366..-1"),
}
RULE_PARTS = frozenset({"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST", "BYDAY", *_INT_PARTS})
#: COUNT and INTERVAL have at most this many digits (999 999 999).
MAX_NUMBER_DIGITS = 9

_HINT = "see RFC 5545 §3.3.10, e.g. FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9"


@dataclass(frozen=True)
class RulePart:
    """One `NAME=VALUE` of an RRULE with its character offset in the whole schedule text."""

    name: str
    value: str
    position: int


def split_parts(text: str, rule: str, offset: int) -> dict[str, RulePart]:
    """The parts of `rule` (found at `offset` in `text`), rejecting unknown and repeated names."""
    parts: dict[str, RulePart] = {}
    position = offset
    for chunk in rule.split(";"):
        name, sep, value = chunk.partition("=")
        name = name.strip().upper()
        if not sep or not value.strip():
            raise InvalidSchedule(
                text, f"{quote(chunk)}: expected NAME=VALUE", position=position, hint=_HINT
            )
        if name not in RULE_PARTS:
            raise InvalidSchedule(
                text, f"{quote(name)}: unknown RRULE part", position=position, hint=_HINT
            )
        if name in parts:
            raise InvalidSchedule(text, f"{name}: given twice", position=position, hint="keep one")
        parts[name] = RulePart(name, value.strip().upper(), position)
        position += len(chunk) + 1
    return parts


def rule_kwargs(text: str, parts: dict[str, RulePart]) -> dict[str, Any]:
    """dateutil `rrule` keyword arguments (without dtstart/until) for validated `parts`."""
    if "FREQ" not in parts:
        raise InvalidSchedule(text, "FREQ is missing", position=0, hint=_HINT)
    freq_part = parts["FREQ"]
    if freq_part.value not in FREQS:
        reason = f"{named_value('FREQ', freq_part.value)}: must be one of {', '.join(FREQS)}"
        raise InvalidSchedule(text, reason, position=freq_part.position, hint=_HINT)
    freq = FREQS[freq_part.value]
    kwargs: dict[str, Any] = {"freq": freq, "interval": _positive(text, parts, "INTERVAL", 1)}
    if "COUNT" in parts:
        kwargs["count"] = _positive(text, parts, "COUNT", 1)
    if "WKST" in parts:
        kwargs["wkst"] = _weekday_index(text, parts["WKST"])
    for name, (keyword, low, high, negative, meaning) in _INT_PARTS.items():
        if name in parts:
            kwargs[keyword] = _int_list(text, parts[name], low, high, negative, meaning)
    if "BYDAY" in parts:
        in_month = freq == du.MONTHLY or "bymonth" in kwargs
        kwargs["byweekday"] = _byday(text, parts["BYDAY"], freq, "byweekno" in kwargs, in_month)
    _check_combinations(text, parts, freq)
    return kwargs


def _positive(text: str, parts: dict[str, RulePart], name: str, default: int) -> int:
    if name not in parts:
        return default
    part = parts[name]
    if not re.fullmatch(r"\+?\d+", part.value) or int(part.value) < 1:
        reason = f"{_shown(part)}: must be a whole number of at least 1"
        raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)
    if len(part.value.lstrip("+0")) > MAX_NUMBER_DIGITS:
        largest = "9" * MAX_NUMBER_DIGITS
        reason = (
            f"{_shown(part)}: at most {largest} ({MAX_NUMBER_DIGITS} digits, MAX_NUMBER_DIGITS)"
        )
        raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)
    return int(part.value)


def _shown(rule_part: RulePart) -> str:
    return named_value(rule_part.name, rule_part.value)


def _int_list(
    text: str, part: RulePart, low: int, high: int, negative: bool, meaning: str
) -> tuple[int, ...]:
    items = part.value.split(",")
    values = []
    for item in items:
        ok = re.fullmatch(r"[+-]?\d{1,4}", item.strip()) is not None
        number = int(item) if ok else 0
        if not ok or not (low <= abs(number) <= high) or (number < 0 and not negative):
            reason = f"{named_value(part.name, item.strip())}: {meaning}"
            raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)
        values.append(number)
    return tuple(dict.fromkeys(values))


def _weekday_index(text: str, part: RulePart) -> int:
    if part.value not in WEEKDAYS:
        reason = f"{_shown(part)}: weekday must be one of {','.join(WEEKDAYS)}"
        raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)
    return WEEKDAYS.index(part.value)


def _byday(
    text: str, part: RulePart, freq: int, has_weekno: bool, in_month: bool
) -> tuple[du.weekday, ...]:
    days = []
    for item in part.value.split(","):
        match = _BYDAY.fullmatch(item.strip())
        if match is None:
            reason = f"BYDAY: {quote(item)} is not a weekday such as MO, 2TU or -1FR"
            raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)
        sign, digits, name = match.groups()
        weekday = du.weekday(WEEKDAYS.index(name))
        if digits is None:
            days.append(weekday)
            continue
        _check_ordinal(text, part, (freq, has_weekno, in_month), int(sign + digits))
        days.append(weekday(int(sign + digits)))
    return tuple(dict.fromkeys(days))


def _check_ordinal(
    text: str, part: RulePart, context: tuple[int, bool, bool], ordinal: int
) -> None:
    """A numbered weekday counts within the month (MONTHLY, or YEARLY with BYMONTH) or year."""
    freq, has_weekno, in_month = context
    limit = 5 if in_month else 53
    if freq not in (du.MONTHLY, du.YEARLY) or has_weekno:
        reason = f"{_shown(part)}: a numbered weekday needs FREQ=MONTHLY or YEARLY without BYWEEKNO"
        raise InvalidSchedule(text, reason, position=part.position, hint="drop the number")
    if ordinal == 0 or abs(ordinal) > limit:
        reason = f"{_shown(part)}: the number must be 1..{limit} or -{limit}..-1"
        raise InvalidSchedule(text, reason, position=part.position, hint=_HINT)


def _check_combinations(text: str, parts: dict[str, RulePart], freq: int) -> None:
    """RFC 5545 §3.3.10 restrictions on which BYxxx go with which FREQ."""
    forbidden = []
    if freq != du.YEARLY:
        forbidden.append("BYWEEKNO")
    if freq in (du.DAILY, du.WEEKLY, du.MONTHLY):
        forbidden.append("BYYEARDAY")
    if freq == du.WEEKLY:
        forbidden.append("BYMONTHDAY")
    for name in forbidden:
        if name in parts:
            freq_name = parts["FREQ"].value
            reason = f"{name}: not allowed with FREQ={freq_name}"
            raise InvalidSchedule(text, reason, position=parts[name].position, hint=_HINT)
    if "COUNT" in parts and "UNTIL" in parts:
        reason = "COUNT and UNTIL: give one of them, not both"
        raise InvalidSchedule(text, reason, position=parts["UNTIL"].position, hint=_HINT)
    if "BYSETPOS" in parts and not any(n.startswith("BY") and n != "BYSETPOS" for n in parts):
        reason = "BYSETPOS: needs another BYxxx part to pick from"
        raise InvalidSchedule(text, reason, position=parts["BYSETPOS"].position, hint=_HINT)
