"""RFC 5545 schedules: DTSTART, one or more RRULEs, RDATE and EXDATE, in one zone.

Each RRULE and the RDATE list is a source of wall times; each source is turned into instants
by the DST policy on its own (so a COUNT counts that rule's own runs), EXDATE removes wall
times from every source, and the sources are merged with each instant kept once.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta

from dateutil import rrule as du

from engine.recurrence.describe import describe_recurrence
from engine.recurrence.errors import InvalidSchedule, NeverOccurs
from engine.recurrence.horizon import Horizon
from engine.recurrence.last import last_instant
from engine.recurrence.notices import recurrence_warnings
from engine.recurrence.options import DstGap, DstRepeat, ScheduleLimits
from engine.recurrence.rfc5545 import DateValue, RuleBlock
from engine.recurrence.runs import count_runs
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence, merged, occurrences_after
from engine.recurrence.walker import LAST_WALL
from engine.recurrence.wall_rule import EndsBy, WallRule, build_wall_rule
from engine.recurrence.zones import GapMode, WallMapping, load_zone, to_wall

#: How far a wall time's instant can move from it (the widest DST change is a day).
_SHIFT = timedelta(days=2)


@dataclass(frozen=True)
class Recurrence:
    """A resolved RFC 5545 schedule: rules, extra and excluded wall times, and the DST policy.

    `has_dtstart` says whether DTSTART was written (else it is the anchor); `horizon` is set
    when a rule ends at the horizon cap.
    """

    rules: tuple[WallRule, ...]
    rdates: tuple[datetime, ...]
    exdates: frozenset[datetime]
    mapping: WallMapping
    zone_name: str
    texts: tuple[str, ...]
    dead: tuple[str, ...]
    has_dtstart: bool
    horizon: Horizon | None
    last_at: datetime | None = None

    @property
    def ends(self) -> datetime | None:
        """The instant of the last occurrence (after EXDATE and DST)."""
        return self.last_at

    @property
    def ends_by(self) -> EndsBy | None:
        latest = max(self.rules, key=lambda rule: rule.end, default=None)
        if latest is None or (self.rdates and self.rdates[-1] > latest.end):
            return EndsBy.UNTIL
        return latest.ends_by

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Wall times at or after `low`: the rules and RDATEs merged, EXDATEs removed."""
        streams = [rule.walls_from(low) for rule in self.rules]
        streams.append(self._rdates_from(low))
        last = None
        for wall in heapq.merge(*streams):
            if wall != last and wall not in self.exdates:
                yield wall
            last = wall

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        streams = [self._rule_stream(rule, instant) for rule in self.rules]
        if self.rdates:
            streams.append(occurrences_after(self._rdates_from, self.mapping, instant))
        return merged(streams)

    def describe(self) -> Description:
        return describe_recurrence(self)

    def warnings(self) -> list[str]:
        return recurrence_warnings(self)

    def _rule_stream(self, rule: WallRule, instant: datetime) -> Iterator[Occurrence]:
        def walls(low: datetime) -> Iterator[datetime]:
            return (wall for wall in rule.walls_from(low) if wall not in self.exdates)

        cut = (rule.last, rule.last_runs) if rule.last_runs is not None else None
        source = walls if self.exdates else rule.walls_from
        return occurrences_after(source, self.mapping, instant, cut)

    def _rdates_from(self, low: datetime) -> Iterator[datetime]:
        return (wall for wall in self.rdates if wall >= low and wall not in self.exdates)


def build_recurrence(
    text: str,
    block: RuleBlock,
    timezone: str,
    horizon: Horizon,
    dst: tuple[DstGap, DstRepeat],
    limits: ScheduleLimits,
) -> Recurrence:
    """Resolve `block` in its zone (DTSTART's TZID wins over `timezone`); `horizon` gives the
    anchor (DTSTART when none is written) and the cap of open-ended rules."""
    zone_name = block.dtstart.zone if block.dtstart and block.dtstart.zone else timezone
    zone = load_zone(zone_name)
    gap = GapMode.SHIFT if dst[0] is DstGap.SHIFT else GapMode.SKIP
    mapping = WallMapping(zone, gap, dst[1] is DstRepeat.BOTH)
    anchor = to_wall(horizon.anchor, zone).replace(second=0, microsecond=0)
    start = _wall(block.dtstart, zone_name) if block.dtstart else anchor
    cap = horizon.cap_wall(start, zone)
    rules, dead = [], []
    for line in block.rules:
        kwargs = line.kwargs if block.dtstart else anchored_kwargs(line.kwargs)
        dtstart = start if block.dtstart else anchored_start(kwargs, anchor)
        until = _until_wall(line.until, zone_name) if line.until else None
        try:
            rules.append(count_runs(build_wall_rule(text, kwargs, dtstart, until, cap), mapping))
        except NeverOccurs:
            if len(block.rules) + bool(block.rdates) == 1:
                raise
            dead.append(line.text)
    first = min((rule.dtstart for rule in rules), default=start)
    rdates = tuple(sorted({_wall(value, zone_name, first) for value in block.rdates}))
    exdates = frozenset(_wall(value, zone_name, first) for value in block.exdates)
    texts = tuple(line.text for line in block.rules if line.text not in dead)
    capped = any(rule.ends_by is EndsBy.CAP for rule in rules)
    recurrence = Recurrence(
        tuple(rules), rdates, exdates, mapping, zone_name, texts, tuple(dead),
        block.dtstart is not None, horizon.with_cap(cap, zone) if capped else None,
    )  # fmt: skip
    recurrence = replace(recurrence, last_at=last_instant(recurrence))
    if not rules and not rdates:
        raise NeverOccurs(text, "none of its RRULEs ever occurs", hint="check the BYxxx parts")
    if recurrence.ends is None:
        raise InvalidSchedule(
            text, "EXDATE and DST leave no occurrence", hint="remove EXDATE values or the rule"
        )
    return recurrence


def anchored_kwargs(kwargs: dict[str, object]) -> dict[str, object]:
    """Without DTSTART, times left out are 0, not the anchor's: BYHOUR means on the hour, and
    an HOURLY rule runs at :00, a MINUTELY one at second 0."""
    out = dict(kwargs)
    freq = out["freq"]
    if (out.get("byhour") and freq < du.MINUTELY) or freq == du.HOURLY:  # type: ignore[operator]
        out.setdefault("byminute", (0,))
    if freq in (du.HOURLY, du.MINUTELY):
        out.setdefault("bysecond", (0,))
    return out


def anchored_start(kwargs: dict[str, object], anchor: datetime) -> datetime:
    """DTSTART of a rule written without one: the anchor, except that a sub-daily grid that
    fits a day a whole number of times starts at midnight, so `FREQ=HOURLY;INTERVAL=2` runs at
    even hours whenever it was created: then DTSTART is the anchor when its unit is on the
    grid, else the next unit that is."""
    freq = kwargs["freq"]
    if freq < du.HOURLY:  # type: ignore[operator]
        return anchor
    unit_s = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}[freq]  # type: ignore[index]
    if 86_400 % (unit_s * kwargs["interval"]):  # type: ignore[operator]
        return anchor  # a grid that is not the same every day has no midnight to start from
    midnight = datetime.combine(anchor.date(), time())
    units = int((anchor - midnight).total_seconds()) // unit_s
    behind = units % kwargs["interval"]  # type: ignore[operator]
    if behind == 0:
        return anchor
    return midnight + timedelta(seconds=(units - behind + kwargs["interval"]) * unit_s)  # type: ignore[operator]


def _until_wall(value: DateValue, zone_name: str) -> datetime:
    """UNTIL as a wall time; a DATE UNTIL includes its whole day (an UNTIL that falls after
    the calendar's end in the zone is its end)."""
    try:
        wall = _wall(value, zone_name)
    except OverflowError:
        return LAST_WALL
    return datetime.combine(wall.date(), time(23, 59, 59)) if value.is_date else wall


def _wall(value: DateValue, zone_name: str, dtstart: datetime | None = None) -> datetime:
    """`value` as a wall time in the schedule's zone; a DATE RDATE/EXDATE takes DTSTART's time."""
    if value.is_date and dtstart is not None:
        return datetime.combine(value.wall.date(), dtstart.time())
    if value.zone is None or value.zone == zone_name:
        return value.wall
    return to_wall(value.wall.replace(tzinfo=load_zone(value.zone)), load_zone(zone_name))
