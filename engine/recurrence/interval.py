"""Interval schedules (`every 15m`, `PT15M`) and one-shot instants: pure elapsed-time arithmetic.

An interval counts real elapsed time from its anchor (every 2h is every 7 200 s, also across a
DST change), so it needs no DST policy. It ends at the horizon cap like any unbounded rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from engine.recurrence import wording as w
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence
from engine.recurrence.wall_rule import EndsBy

_SHORT = re.compile(
    r"every\s+(\d{1,9})\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?)", re.I
)
_ISO = re.compile(r"P(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})S)?)?", re.I)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_HINT = "write e.g. 'every 15m', 'every 2h' or an ISO 8601 duration such as PT15M"


def parse_duration(text: str) -> timedelta | None:
    """The duration of `every 15m` / `PT15M` texts; None when `text` is not an interval."""
    short = _SHORT.fullmatch(text.strip())
    if short:
        unit = short.group(2).lower()[0]
        return timedelta(seconds=int(short.group(1)) * _UNIT_S[unit])
    iso = _ISO.fullmatch(text.strip())
    if iso and any(iso.groups()) and not text.strip().upper().endswith("T"):
        days, hours, minutes, seconds = (int(g or 0) for g in iso.groups())
        return timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
    return None


@dataclass(frozen=True)
class Interval:
    """Occurrences at anchor + k * step (k >= 0), up to `end`."""

    step: timedelta
    anchor: datetime
    end: datetime
    zone: tzinfo

    @property
    def ends(self) -> datetime | None:
        return self.end.astimezone(self.zone)

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.CAP

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        steps = max(0, (instant - self.anchor) // self.step + 1)
        at = self.anchor + steps * self.step
        while at <= self.end:
            local = at.astimezone(self.zone)
            yield Occurrence(local, local.replace(tzinfo=None))
            at += self.step

    def describe(self) -> Description:
        seconds = int(self.step.total_seconds())
        for index, unit_s in ((3, 86400), (4, 3600), (5, 60), (6, 1)):
            if seconds % unit_s == 0:
                text = w.plural(seconds // unit_s, w.UNITS[index])
                break
        return Description(f"{text}, {w.starting_phrase(self.anchor.astimezone(self.zone))}", True)

    def warnings(self) -> list[str]:
        return []


def build_interval(
    text: str, step: timedelta, anchor: datetime, end: datetime, zone: tzinfo, min_interval_s: int
) -> Interval:
    """An interval schedule, rejecting steps under the tenant's minimum."""
    if step.total_seconds() < min_interval_s:
        step_s = step.total_seconds()
        reason = f"{text.strip()}: every {step_s:g} s is below the minimum of {min_interval_s} s"
        raise InvalidSchedule(text, reason, position=0, hint=_HINT)
    return Interval(step, anchor.astimezone(UTC), end, zone)


@dataclass(frozen=True)
class Once:
    """A single instant."""

    at: datetime

    @property
    def ends(self) -> datetime | None:
        return self.at

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.UNTIL

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        if self.at > instant:
            yield Occurrence(self.at, self.at.replace(tzinfo=None))

    def describe(self) -> Description:
        return Description(f"{w.once_phrase(self.at)} {w.zone_phrase(str(self.at.tzinfo))}", True)

    def warnings(self) -> list[str]:
        return []


def parse_instant(text: str, zone: tzinfo) -> datetime | None:
    """An ISO 8601 instant in `zone` (a naive one is read in the zone); None if not one."""
    if not re.fullmatch(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?", text.strip()
    ):
        return None
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidSchedule(
            text,
            f"{text.strip()}: not a valid date and time",
            position=0,
            hint="write e.g. 2026-12-01T09:00:00+01:00",
        ) from exc
    return at.replace(tzinfo=zone) if at.tzinfo is None else at.astimezone(zone)
