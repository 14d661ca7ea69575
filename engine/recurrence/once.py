"""One-shot schedules: a single instant, written in ISO 8601 or as "once, on ... at ...".

An instant with an offset is exact. A wall time without one is read in the schedule's zone
the way rules read theirs: inside a spring-forward gap it shifts (`dst_gap=shift`, 02:30 runs
at 03:30) or is refused (`skip`: it would never run); inside a fall-back repeat it runs at the
first instant or at both (`dst_repeat`). The preview notes either case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from engine.recurrence import wording as w
from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.options import DstGap, DstRepeat
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence
from engine.recurrence.wall_rule import EndsBy
from engine.recurrence.zones import GapMode, WallMapping, is_gap, is_repeated, load_zone

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")


@dataclass(frozen=True)
class Once:
    """The instants of one wall time (two when a repeated hour runs at both), in its zone."""

    instants: tuple[datetime, ...]
    wall: datetime
    zone_name: str
    mapping: WallMapping | None = None
    """How the wall time was resolved (None: the text gave an exact instant)."""

    @property
    def ends(self) -> datetime | None:
        return self.instants[-1]

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.UNTIL

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        for at in self.instants:
            if at > instant:
                yield Occurrence(at, self.wall)

    def describe(self) -> Description:
        """'once, on March 28, 2027 at 3:30'; 'twice' when a repeated hour runs at both; the
        exact instant when the text gave one inside a repeated hour (the wall time is not
        enough to say which of the two it is)."""
        first = self.instants[0]
        zone = w.zone_phrase(self.zone_name)
        if self.mapping is None and is_repeated(first.replace(tzinfo=None), first.tzinfo):  # type: ignore[arg-type]
            return Description(f"once, at {first.isoformat()} {zone}", True)
        when = f"{w.long_date(first)} at {w.clock(first.hour, first.minute, first.second)}"
        times = "twice" if len(self.instants) == 2 else "once"
        return Description(f"{times}, on {when} {zone}", True)

    def warnings(self) -> list[str]:
        return []


def _in_gap(wall: datetime, zone: ZoneInfo) -> bool:
    try:
        return is_gap(wall, zone)
    except OverflowError:
        return False


def parse_instant(text: str) -> datetime | None:
    """An ISO 8601 date and time (naive: a wall time); None when `text` is not one."""
    if not _ISO.fullmatch(text.strip()):
        return None
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidSchedule(
            text,
            f"{quote(text.strip())}: not a valid date and time",
            position=0,
            hint="write e.g. 2026-12-01T09:00:00+01:00",
        ) from exc


def build_once(text: str, at: datetime, zone_name: str, dst: tuple[DstGap, DstRepeat]) -> Once:
    """The one-shot at `at` (aware, or a wall time in `zone_name` resolved by the DST policy)."""
    zone = load_zone(zone_name)
    if at.tzinfo is not None:
        local = at.astimezone(zone)
        return Once((local,), local.replace(tzinfo=None), zone_name)
    gap = GapMode.SHIFT if dst[0] is DstGap.SHIFT else GapMode.SKIP
    mapping = WallMapping(zone, gap, dst[1] is DstRepeat.BOTH)
    instants = mapping.instants(at)
    if not instants and gap is GapMode.SKIP and _in_gap(at, zone):
        reason = f"{at:%Y-%m-%d %H:%M} does not exist in {zone_name} (DST gap) and dst_gap=skip"
        raise InvalidSchedule(text, reason, hint="pick another time, or use dst_gap=shift")
    if not instants or instants[-1].astimezone(UTC).year < 2:
        raise InvalidSchedule(text, "the instant is out of range", hint="use years 2..9998")
    return Once(instants, at, zone_name, mapping)
