"""Five-field cron schedules, evaluated by croniter with Vixie cron semantics.

Day of month and day of week are OR-ed when both are restricted; a field starting with `*`
(such as `*/2`) counts as unrestricted, so then they are AND-ed, as in Vixie cron.
At DST changes cron follows Vixie cron, not RFC 5545: a fixed-time job (no `*` in minute and
hour) whose time is skipped by spring-forward runs right after the change (02:30 -> 03:00) and
runs once in the repeated hour; a wildcard job follows the wall clock (skipped times do not
happen, repeated times happen twice).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from croniter import CroniterBadDateError, CroniterError, croniter

from engine.recurrence.cron_text import describe_cron
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence, occurrences_after
from engine.recurrence.wall_rule import EndsBy, min_gap_s
from engine.recurrence.wording import WARN_CRON_DST
from engine.recurrence.zones import GapMode, WallMapping

_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_HINT = "write five fields: minute hour day-of-month month day-of-week, e.g. '30 9 * * 1-5'"


def looks_like_cron(text: str) -> bool:
    """True for `@daily`-style aliases and texts of space-separated cron-like fields."""
    fields = text.split()
    return text.strip().startswith("@") or (
        len(fields) >= 5
        and all(set(f) <= set("0123456789*/,-?LW#") or f.isalpha() for f in fields)
        and any(ch.isdigit() or ch == "*" for ch in fields[0])
    )


@dataclass(frozen=True)
class Cron:
    """A validated cron expression in a zone, starting at `start` and ending at `end` (walls)."""

    expression: str
    mapping: WallMapping
    zone_name: str
    start: datetime
    end: datetime
    day_or: bool

    @property
    def ends(self) -> datetime | None:
        return self.end.replace(tzinfo=self.mapping.zone)

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.CAP

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Wall times at or after `low` (croniter on naive local times)."""
        low = max(low, self.start)
        it = croniter(self.expression, low, day_or=self.day_or, max_years_between_matches=30)
        first = low.replace(second=0, microsecond=0)
        if first == low and croniter.match(self.expression, low, day_or=self.day_or):
            yield low
        try:
            while (wall := it.get_next(datetime)) <= self.end:
                yield wall
        except CroniterBadDateError:
            return

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        return occurrences_after(self.walls_from, self.mapping, instant)

    def describe(self) -> Description:
        return describe_cron(self.expression, self.day_or, self.zone_name)

    def warnings(self) -> list[str]:
        return [WARN_CRON_DST]


def build_cron(
    text: str, zone_name: str, zone: object, span: tuple[datetime, datetime], min_interval_s: int
) -> Cron:
    """Validate `text` as five-field cron (aliases expanded); InvalidSchedule names the field."""
    expression = _ALIASES.get(text.strip().lower(), text.strip())
    fields = expression.split()
    if len(fields) != 5:
        reason = f"cron has {len(fields)} fields; exactly 5 are supported (no seconds, no year)"
        raise InvalidSchedule(text, reason, position=0, hint=_HINT)
    try:
        croniter(expression)
    except CroniterError as exc:
        raise InvalidSchedule(
            text, f"cron {expression!r}: {_field_error(fields)}", position=0, hint=_HINT
        ) from exc
    day_or = not (fields[2].startswith("*") or fields[4].startswith("*"))
    fixed = not (fields[0].startswith("*") or fields[1].startswith("*"))
    gap = GapMode.GAP_END if fixed else GapMode.SKIP
    mapping = WallMapping(zone, gap, not fixed)  # type: ignore[arg-type]
    cron = Cron(expression, mapping, zone_name, span[0], span[1], day_or)
    if next(cron.walls_from(span[0]), None) is None:
        raise InvalidSchedule(
            text,
            f"cron {expression!r} never occurs",
            position=0,
            hint="check the day-of-month and month fields (e.g. 31 in February)",
        )
    gap_s = min_gap_s(cron.walls_from(span[0]), 20)
    if gap_s is not None and gap_s < min_interval_s:
        reason = f"cron {expression!r} runs {gap_s:g} s apart; the minimum is {min_interval_s} s"
        raise InvalidSchedule(text, reason, position=0, hint="use a larger minute step")
    return cron


def _field_error(fields: list[str]) -> str:
    names = ("minute", "hour", "day-of-month", "month", "day-of-week")
    for name, field in zip(names, fields, strict=True):
        probe = ["*"] * 5
        probe[names.index(name)] = field
        try:
            croniter(" ".join(probe))
        except CroniterError:
            return f"{name} field {field!r} is not valid"
    return "not a valid cron expression"
