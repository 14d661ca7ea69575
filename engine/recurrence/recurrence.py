"""RFC 5545 schedules: DTSTART, one or more RRULEs, RDATE and EXDATE, in one zone."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, time
from itertools import pairwise

from dateutil import rrule as du

from engine.recurrence.describe import describe_recurrence
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.options import DstGap, DstRepeat, ScheduleLimits
from engine.recurrence.rfc5545 import DateValue, RuleBlock
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence, occurrences_after
from engine.recurrence.wall_rule import EndsBy, WallRule, build_wall_rule, min_gap_s
from engine.recurrence.wording import WARN_DST_SKIP, WARN_MISSING_DAY, ordinal
from engine.recurrence.zones import GapMode, WallMapping, load_zone, to_wall

#: Month lengths in a common year (a 29th of February is missing three years in four).
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@dataclass(frozen=True)
class Recurrence:
    """A resolved RFC 5545 schedule: rules, extra and excluded wall times, and the DST policy."""

    rules: tuple[WallRule, ...]
    rdates: tuple[datetime, ...]
    exdates: frozenset[datetime]
    mapping: WallMapping
    zone_name: str
    texts: tuple[str, ...]

    @property
    def ends(self) -> datetime | None:
        last = max([rule.end for rule in self.rules] + list(self.rdates[-1:]))
        instants = self.mapping.instants(last) or (last.replace(tzinfo=self.mapping.zone),)
        return instants[-1]

    @property
    def ends_by(self) -> EndsBy | None:
        latest = max(self.rules, key=lambda rule: rule.end, default=None)
        if latest is None or (self.rdates and self.rdates[-1] > latest.end):
            return EndsBy.UNTIL
        return latest.ends_by

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Wall times at or after `low`: the rules and RDATEs merged, EXDATEs removed."""
        streams = [rule.walls_from(low) for rule in self.rules]
        streams.append(iter([wall for wall in self.rdates if wall >= low]))
        last = None
        for wall in heapq.merge(*streams):
            if wall != last and wall not in self.exdates:
                yield wall
            last = wall

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        return occurrences_after(self.walls_from, self.mapping, instant)

    def describe(self) -> Description:
        return describe_recurrence(self)

    def warnings(self) -> list[str]:
        warnings = [_missing_day_warning(rule) for rule in self.rules]
        warnings = [warning for warning in warnings if warning]
        if self.mapping.gap is GapMode.SKIP:
            warnings.append(WARN_DST_SKIP)
        return warnings


def build_recurrence(
    text: str,
    block: RuleBlock,
    timezone: str,
    anchor: datetime,
    dst: tuple[DstGap, DstRepeat],
    limits: ScheduleLimits,
) -> Recurrence:
    """Resolve `block` in its zone (DTSTART's TZID wins over `timezone`) and apply the guards."""
    zone_name = block.dtstart.zone if block.dtstart and block.dtstart.zone else timezone
    zone = load_zone(zone_name)
    gap = GapMode.SHIFT if dst[0] is DstGap.SHIFT else GapMode.SKIP
    mapping = WallMapping(zone, gap, dst[1] is DstRepeat.BOTH)
    anchored = block.dtstart is None
    dtstart = _wall(block.dtstart, zone_name) if block.dtstart else _anchor_wall(anchor, zone_name)
    cap = _add_years(dtstart, limits.horizon_years)
    rules = []
    for line in block.rules:
        if line.kwargs["freq"] == du.SECONDLY and not limits.allow_secondly:
            raise InvalidSchedule(
                text,
                "FREQ=SECONDLY: not allowed for this tenant",
                position=0,
                hint="use FREQ=MINUTELY or coarser",
            )
        kwargs = _anchored_defaults(line.kwargs) if anchored else line.kwargs
        until = _until_wall(line.until, zone_name) if line.until else None
        rules.append(build_wall_rule(text, kwargs, dtstart, until, cap))
    rdates = tuple(sorted({_wall(value, zone_name, dtstart) for value in block.rdates}))
    exdates = frozenset(_wall(value, zone_name, dtstart) for value in block.exdates)
    texts = tuple(line.text for line in block.rules)
    recurrence = Recurrence(tuple(rules), rdates, exdates, mapping, zone_name, texts)
    _check_gap(text, recurrence, limits)
    return recurrence


def _rule_gap_s(rule: WallRule) -> float | None:
    """Least wall-clock gap of one rule: exact from its times of day when FREQ is DAILY or
    coarser (days never repeat within a period), sampled otherwise."""
    if rule.kwargs["freq"] >= du.HOURLY:
        return min_gap_s(rule.walls_from(rule.first), 50)
    k = rule.kwargs
    times = sorted(
        h * 3600 + m * 60 + s for h in k["byhour"] for m in k["byminute"] for s in k["bysecond"]
    )
    gaps = [b - a for a, b in pairwise(times)]
    return float(min(gaps)) if gaps else None


def _missing_day_warning(rule: WallRule) -> str | None:
    """'skips months without a 31st day' when a day of month does not exist in some month."""
    if rule.kwargs["freq"] == du.YEARLY and not rule.kwargs.get("bymonth"):
        return None
    day = max(rule.kwargs.get("bymonthday") or (0,))
    months = rule.kwargs.get("bymonth") or range(1, 13)
    if day >= 29 and any(day > _MONTH_DAYS[month - 1] for month in months):
        return WARN_MISSING_DAY.format(day=ordinal(day))
    return None


def _check_gap(text: str, recurrence: Recurrence, limits: ScheduleLimits) -> None:
    """Daily-or-coarser rules by their times of day; sub-daily rules by their first 50
    occurrences; every RDATE; the merged series (first 50) when there are several sources."""
    start = min([rule.first for rule in recurrence.rules] + list(recurrence.rdates[:1]))
    samples = [_rule_gap_s(rule) for rule in recurrence.rules]
    samples.append(min_gap_s(iter(recurrence.rdates)))
    if len(recurrence.rules) + bool(recurrence.rdates) > 1:
        samples.append(min_gap_s(recurrence.walls_from(start), 50))
    gap_s = min((gap for gap in samples if gap is not None), default=None)
    if gap_s is not None and gap_s < limits.min_interval_s:
        reason = f"occurrences {gap_s:g} s apart; the minimum is {limits.min_interval_s} s"
        raise InvalidSchedule(text, reason, hint="raise INTERVAL or list fewer BYxxx values")


def _anchored_defaults(kwargs: dict[str, object]) -> dict[str, object]:
    """Without DTSTART, BYHOUR means on the hour: BYMINUTE defaults to 0, not the anchor's."""
    out = dict(kwargs)
    if out.get("byhour") and "byminute" not in out and out["freq"] < du.MINUTELY:  # type: ignore[operator]
        out["byminute"] = (0,)
    return out


def _until_wall(value: DateValue, zone_name: str) -> datetime:
    """UNTIL as a wall time; a DATE UNTIL includes its whole day."""
    wall = _wall(value, zone_name)
    return datetime.combine(wall.date(), time(23, 59, 59)) if value.is_date else wall


def _wall(value: DateValue, zone_name: str, dtstart: datetime | None = None) -> datetime:
    """`value` as a wall time in the schedule's zone; a DATE RDATE/EXDATE takes DTSTART's time."""
    if value.is_date and dtstart is not None:
        return datetime.combine(value.wall.date(), dtstart.time())
    if value.zone is None or value.zone == zone_name:
        return value.wall
    return to_wall(value.wall.replace(tzinfo=load_zone(value.zone)), load_zone(zone_name))


def _anchor_wall(anchor: datetime, zone_name: str) -> datetime:
    return to_wall(anchor, load_zone(zone_name)).replace(second=0, microsecond=0)


def _add_years(wall: datetime, years: int) -> datetime:
    try:
        return wall.replace(year=wall.year + years)
    except ValueError:  # 29 February
        return wall.replace(year=wall.year + years, day=28)
