"""Interval schedules (`every 15m`, `PT15M`, "every 90 minutes"): elapsed-time arithmetic.

An interval counts real elapsed time from its start (every 24h is every 86 400 s, also across
a DST change, so its local time moves by the change), so it needs no DST policy, and its text
says "of elapsed time" so that it is never mistaken for a calendar rule ("every day at 9:00"
stays at 9:00). It ends at the horizon like any open-ended schedule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from engine.recurrence import wording as w
from engine.recurrence.cadence import check_gap
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.horizon import Horizon
from engine.recurrence.options import ScheduleLimits
from engine.recurrence.schedule import Description
from engine.recurrence.series import Occurrence
from engine.recurrence.transitions import transitions
from engine.recurrence.wall_rule import EndsBy
from engine.recurrence.zones import load_zone, to_wall

_SHORT = re.compile(
    r"every\s+(\d{1,9})\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?)", re.I
)
_ISO = re.compile(r"P(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})S)?)?", re.I)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_STEP_UNITS = ((86_400, w.UNITS[3]), (3600, w.UNITS[4]), (60, w.UNITS[5]), (1, w.UNITS[6]))


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
    """Occurrences at start + k * step (k >= 0), up to `end` (aware instants)."""

    step: timedelta
    start: datetime
    end: datetime
    zone: tzinfo
    zone_name: str
    horizon: Horizon

    @property
    def ends(self) -> datetime | None:
        steps = (self.end - self.start) // self.step
        return (self.start + steps * self.step).astimezone(self.zone)

    @property
    def ends_by(self) -> EndsBy | None:
        return EndsBy.CAP

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        steps = max(0, (instant - self.start) // self.step + 1)
        at = self.start + steps * self.step
        while at <= self.end:
            local = at.astimezone(self.zone)
            yield Occurrence(local, local.replace(tzinfo=None))
            at += self.step

    def describe(self) -> Description:
        local = self.start.astimezone(self.zone).replace(tzinfo=None)
        text = f"every {step_phrase(self.step)} {w.ELAPSED}, starting {w.date_time(local)}"
        return Description(f"{text} {w.zone_phrase(self.zone_name)}", True)

    def warnings(self) -> list[str]:
        return []

    def drift(self, after: datetime) -> str | None:
        """The DST change after `after` that moves the runs' local time, said as a warning."""
        for change in transitions(self.zone, after, self.end):
            if change.shift % self.step:
                before = next(self.occurrences_after(change.at - self.step - self.step))
                later = next(self.occurrences_after(change.at))
                return w.WARN_ELAPSED_DRIFT.format(
                    step=step_phrase(self.step), day=later.at.date(),
                    before=w.clock(before.at.hour, before.at.minute, before.at.second),
                    after=w.clock(later.at.hour, later.at.minute, later.at.second),
                )  # fmt: skip
        return None


def step_phrase(step: timedelta) -> str:
    """'90 minutes', '1 day', '17 seconds': the largest unit that divides the step."""
    seconds = int(step.total_seconds())
    unit_s, names = next((u, n) for u, n in _STEP_UNITS if seconds % u == 0)
    count = seconds // unit_s
    return f"{count} {names[0] if count == 1 else names[1]}"


def build_interval(
    text: str,
    step: timedelta,
    start: datetime | None,
    horizon: Horizon,
    zone_name: str,
    limits: ScheduleLimits,
) -> Interval:
    """An interval from `start` (default: the anchor), refused below the tenant's minimum and
    when it would not run twice before the horizon (a step of more than `horizon_years`)."""
    check_gap(text, step.total_seconds(), limits)
    zone = load_zone(zone_name)
    begin = (start or horizon.anchor).astimezone(UTC)
    end = horizon.cap_wall(to_wall(begin, zone), zone).replace(tzinfo=zone).astimezone(UTC)
    if step > end - begin:
        reason = f"every {step_phrase(step)} is longer than the horizon ({horizon.years} years)"
        raise InvalidSchedule(text, reason, hint="use a shorter interval, or a one-shot instant")
    return Interval(
        step,
        begin,
        end,
        zone,
        zone_name,
        horizon.with_cap(end.astimezone(zone).replace(tzinfo=None), zone),
    )
