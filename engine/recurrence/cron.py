"""Five-field cron schedules, evaluated by croniter with Vixie cron semantics.

Names work anywhere a number does (`MON-FRI`, `JAN,JUL`), and croniter's `L` (last day of the
month), `W` (nearest weekday) and `#` (nth weekday) are accepted. Day of month and day of week
are OR-ed when both are restricted; a field starting with `*` (such as `*/2`) counts as
unrestricted, so then they are AND-ed, as in Vixie cron. At DST changes cron follows Vixie
cron, not RFC 5545: a fixed-time job (no `*` in minute and hour) whose time is skipped by
spring-forward runs right after the change (02:30 -> 03:00) and runs once in the repeated
hour; a wildcard job follows the wall clock (skipped times do not happen, repeated ones twice).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from croniter import CroniterError, croniter
from dateutil import rrule as du

from engine.recurrence.cadence import check_gap, sampled_gap_s, smallest, times_gap_s
from engine.recurrence.coarse import CoarseBlocks
from engine.recurrence.cron_days import CronDays, day_fields
from engine.recurrence.cron_text import cron_times, describe_cron, is_dst_free
from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.horizon import Horizon
from engine.recurrence.options import ScheduleLimits
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence, occurrences_after
from engine.recurrence.walker import Walker
from engine.recurrence.wall_rule import EndsBy, first_wall
from engine.recurrence.wording import WARN_CRON_DST
from engine.recurrence.zones import GapMode, WallMapping, load_zone, to_wall

_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_FIELD = re.compile(r"[0-9*/,?\-]+")
_HINT = "write five fields: minute hour day-of-month month day-of-week, e.g. '30 9 * * MON-FRI'"
#: Runs sampled for gaps across days (croniter is slow per run, see docs/performance.md;
#: within a day the gap is exact, from the times).
_SAMPLE = 50
_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")


def looks_like_cron(text: str) -> bool:
    """True for `@daily`-style aliases and texts whose first two fields are cron numbers."""
    fields = text.split()
    if text.strip().startswith("@"):
        return True
    return len(fields) >= 3 and all(_FIELD.fullmatch(field) for field in fields[:2])


@dataclass(frozen=True)
class Cron:
    """A validated cron expression in a zone, from `start` to `end` (wall times), walked like
    a daily RRULE whose days are the expression's (see `cron_days`)."""

    expression: str
    mapping: WallMapping
    zone_name: str
    start: datetime
    end: datetime
    horizon: Horizon
    walker: Walker = field(compare=False, repr=False)

    @property
    def ends(self) -> datetime | None:
        last = next(self.walker.walls_back(self.end), None)
        if last is None:
            return None
        instants = self.mapping.instants(last) or (last.replace(tzinfo=self.mapping.zone),)
        return instants[-1]

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.CAP

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Wall times at or after `low`, up to `end`."""
        for wall in self.walker.walls_from(max(low, self.start)):
            if wall > self.end:
                return
            yield wall

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        return occurrences_after(self.walls_from, self.mapping, instant)

    def describe(self) -> Description:
        dst_free = is_dst_free(self.expression, self.mapping.zone, self.start, self.end)
        return describe_cron(self.expression, self.zone_name, dst_free)

    def warnings(self) -> list[str]:
        dst_free = is_dst_free(self.expression, self.mapping.zone, self.start, self.end)
        return [] if dst_free else [WARN_CRON_DST]


def build_cron(text: str, zone_name: str, horizon: Horizon, limits: ScheduleLimits) -> Cron:
    """Validate `text` as five-field cron (aliases expanded); InvalidSchedule names the field."""
    expression = _expression(text)
    fields = expression.split()
    fixed = not (fields[0].startswith("*") or fields[1].startswith("*"))
    zone = load_zone(zone_name)
    mapping = WallMapping(zone, GapMode.GAP_END if fixed else GapMode.SKIP, not fixed)
    start = to_wall(horizon.anchor, zone).replace(second=0, microsecond=0)
    end = horizon.cap_wall(start, zone)
    walker = Walker(CoarseBlocks(_daily(expression), start, CronDays(day_fields(expression))))
    cron = Cron(expression, mapping, zone_name, start, end, horizon.with_cap(end, zone), walker)
    if first_wall(walker, walker.blocks.can_occur) is None:
        raise InvalidSchedule(
            text,
            f"cron {quote(expression)} never occurs",
            position=0,
            hint="check the day-of-month and month fields (e.g. 31 in February)",
        )
    within = times_gap_s(cron_times(expression))
    check_gap(text, smallest([within, sampled_gap_s(cron.walls_from(start), _SAMPLE)]), limits)
    return cron


def _daily(expression: str) -> dict[str, Any]:
    """The expression's times as a daily rule's keywords (its days come from `cron_days`)."""
    times = cron_times(expression)
    return {"freq": du.DAILY, "interval": 1, "wkst": 0, "byhour": times.hours,
            "byminute": times.minutes, "bysecond": (0,)}  # fmt: skip


def _expression(text: str) -> str:
    """The five fields of `text`, aliases expanded; InvalidSchedule naming what is wrong."""
    word = text.strip().lower()
    if word.startswith("@"):
        if word == "@reboot":
            raise InvalidSchedule(
                text, "@reboot is not supported: Cadenza runs rules at times, not at start-up",
                position=0, hint="use a time, e.g. '@daily' or a one-shot instant",
            )  # fmt: skip
        if word not in _ALIASES:
            known = ", ".join(_ALIASES)
            raise InvalidSchedule(text, f"{quote(word)}: unknown cron alias", hint=f"use {known}")
        return _ALIASES[word]
    fields = text.split()
    if len(fields) != 5:
        raise InvalidSchedule(text, _count_reason(len(fields)), position=0, hint=_HINT)
    expression = " ".join(fields)
    try:
        croniter(expression)
    except (CroniterError, ValueError) as exc:
        raise InvalidSchedule(text, _field_error(fields), position=0, hint=_HINT) from exc
    _check_day_fields(text, fields[2], fields[4])
    return expression


def _check_day_fields(text: str, days: str, weekdays: str) -> None:
    """croniter mishandles `#` (nth weekday) and `W` (nearest weekday) beside the other day
    field: it ignores the day of month, or finds no date at all. Refused rather than misrun."""
    unrestricted = ("*", "?")
    if "#" in weekdays and not days.startswith(unrestricted):
        special = f"day-of-week {quote(weekdays)} (an nth weekday)"
    elif "W" in days.upper() and not weekdays.startswith(unrestricted):
        special = f"day-of-month {quote(days)} (the nearest weekday)"
    else:
        return
    reason = f"cron {special} together with the other day field is not supported"
    raise InvalidSchedule(text, reason, position=0, hint="give one of them, or write an RRULE")


def _count_reason(count: int) -> str:
    if count in (6, 7):
        extra = "a seconds or a year field" if count == 6 else "seconds and year fields"
        return f"cron with {count} fields ({extra}) is not supported: Cadenza reads 5 fields"
    return f"cron has {count} fields; it needs exactly 5"


def _field_error(fields: list[str]) -> str:
    for name, value in zip(_NAMES, fields, strict=True):
        probe = ["*"] * 5
        probe[_NAMES.index(name)] = value
        try:
            croniter(" ".join(probe))
        except (CroniterError, ValueError):
            return f"cron {name} field {quote(value)} is not valid"
    return f"cron {quote(' '.join(fields))} is not a valid expression"
