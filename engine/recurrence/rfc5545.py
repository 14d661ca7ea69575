"""Reading RFC 5545 recurrence text: a bare rule or a DTSTART/RRULE/EXDATE/RDATE block.

Properties may be separated by newlines or spaces (RRULE values contain no spaces), so
`DTSTART;TZID=America/New_York:19970902T090000 RRULE:FREQ=DAILY;COUNT=10` is one schedule. A
rule's parts come in any order (§3.3.10), with or without `RRULE:`: `INTERVAL=4;FREQ=HOURLY`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.rrule_parts import RULE_PARTS, rule_kwargs, split_parts

_TOKEN = re.compile(r"\S+")
_DATE_TIME = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?")
_HINT = "write e.g. DTSTART;TZID=Europe/Berlin:20260105T090000 RRULE:FREQ=WEEKLY;BYDAY=MO"


@dataclass(frozen=True)
class DateValue:
    """A DATE or DATE-TIME value: a naive wall time and the zone it is read in.

    `zone` is the TZID, "UTC" for a trailing Z, or None for a floating time (the schedule's zone).
    """

    wall: datetime
    zone: str | None
    is_date: bool


@dataclass(frozen=True)
class RuleLine:
    """One RRULE: dateutil keywords (without dtstart/until), its UNTIL and the raw text."""

    kwargs: dict[str, Any]
    until: DateValue | None
    text: str


@dataclass(frozen=True)
class RuleBlock:
    """Everything a recurrence text says, not yet tied to a zone."""

    dtstart: DateValue | None
    rules: tuple[RuleLine, ...]
    rdates: tuple[DateValue, ...]
    exdates: tuple[DateValue, ...]


def looks_like_rfc5545(text: str) -> bool:
    """True when `text` is meant as RFC 5545 (so errors should be RFC 5545 errors): a block
    property first, or a rule part such as `INTERVAL=4;...`."""
    head = text.lstrip().upper()
    blocks = ("RRULE:", "DTSTART", "RDATE", "EXDATE", "EXRULE")
    return head.startswith(blocks) or _is_bare_rule(head)


def _is_bare_rule(token: str) -> bool:
    name, sep, _ = token.partition("=")
    return bool(sep) and name.strip() in RULE_PARTS


def parse_block(text: str) -> RuleBlock:
    """Split `text` into properties and read each; InvalidSchedule names the bad one."""
    dtstart: DateValue | None = None
    rules: list[RuleLine] = []
    dates: dict[str, list[DateValue]] = {"RDATE": [], "EXDATE": []}
    for match in _TOKEN.finditer(text):
        token, position = match.group(), match.start()
        head, _, value = token.partition(":")
        name, *params = head.split(";")
        name = name.upper()
        if _is_bare_rule(token.upper()):
            name, params, value = "RRULE", [], token
        if name == "RRULE" and not params:
            rules.append(_rule_line(text, value, position + len(token) - len(value)))
        elif name == "DTSTART" and dtstart is None:
            dtstart = _date_values(text, params, value, position)[0]
        elif name in dates:
            dates[name].extend(_date_values(text, params, value, position))
        elif name == "EXRULE":
            reason = "EXRULE is deprecated by RFC 5545 and not supported"
            raise InvalidSchedule(text, reason, position=position, hint="list EXDATE values")
        else:
            reason = f"{quote(head)}: unexpected property (or DTSTART given twice)"
            raise InvalidSchedule(text, reason, position=position, hint=_HINT)
    if not rules and not dates["RDATE"]:
        raise InvalidSchedule(text, "no RRULE or RDATE given", position=0, hint=_HINT)
    return RuleBlock(dtstart, tuple(rules), tuple(dates["RDATE"]), tuple(dates["EXDATE"]))


def _rule_line(text: str, value: str, position: int) -> RuleLine:
    parts = split_parts(text, value, position)
    until = parts.get("UNTIL")
    until_value = None
    if until is not None:
        until_value = _date_value(text, until.value, None, until.position, "UNTIL")
    return RuleLine(rule_kwargs(text, parts), until_value, value)


def _date_values(text: str, params: list[str], value: str, position: int) -> list[DateValue]:
    zone: str | None = None
    for param in params:
        key, _, param_value = param.partition("=")
        if key.upper() == "TZID" and param_value:
            zone = param_value.strip('"')
        elif key.upper() != "VALUE" or param_value.upper() not in ("DATE", "DATE-TIME"):
            raise InvalidSchedule(
                text, f"{quote(param)}: unknown parameter", position=position, hint=_HINT
            )
    if not value:
        raise InvalidSchedule(text, "a date property has no value", position=position, hint=_HINT)
    return [_date_value(text, item, zone, position, "date") for item in value.split(",")]


def _date_value(text: str, item: str, zone: str | None, position: int, what: str) -> DateValue:
    match = _DATE_TIME.fullmatch(item.upper())
    try:
        if match is None:
            raise ValueError(item)
        year, month, day, hour, minute, second, utc = match.groups()
        numbers = [int(part or 0) for part in (year, month, day, hour, minute, second)]
        if numbers[0] < 2:
            raise ValueError("before year 2")
        year_n, month_n, day_n, hour_n, minute_n, second_n = numbers
        wall = datetime(year_n, month_n, day_n, hour_n, minute_n, second_n)
    except ValueError as exc:
        reason = f"{what} {quote(item)}: expected YYYYMMDD or YYYYMMDDTHHMMSS[Z], years 2..9999"
        raise InvalidSchedule(text, reason, position=position, hint=_HINT) from exc
    if utc and zone is not None:
        reason = f"{quote(item)}: a TZID time must not end in Z"
        raise InvalidSchedule(text, reason, position=position, hint="drop the Z or the TZID")
    return DateValue(wall, "UTC" if utc else zone, hour is None)
