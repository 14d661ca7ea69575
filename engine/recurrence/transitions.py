"""A zone's UTC-offset changes between two instants, read from the tz database itself.

Sampling offsets cannot find every change cheaply: the database holds pairs of changes under
seven days apart (Asia/Gaza's Ramadan suspensions), and a COUNT can span centuries. So the
changes are read from the stdlib's reference implementation of zoneinfo
(`zoneinfo._zoneinfo`, the pure-Python twin of the C module, reading the same TZif file): its
list of explicit transitions, then the POSIX rule that repeats every year after it. The test
suite checks these against the C implementation's offsets in many zones, so a Python release
that changes them fails loudly instead of silently.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any
from zoneinfo import _zoneinfo  # type: ignore[attr-defined]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Transition:
    """The zone's offset changes from `before` to `after` at the UTC instant `at`.

    A forward change (spring) leaves out the wall times [`gap_start`, `gap_end`); a backward
    one (autumn) repeats them.
    """

    at: datetime
    before: timedelta
    after: timedelta

    @property
    def is_gap(self) -> bool:
        return self.after > self.before

    @property
    def wall_start(self) -> datetime:
        """The earliest wall time the change affects (naive)."""
        return self.at.replace(tzinfo=None) + min(self.before, self.after)

    @property
    def wall_end(self) -> datetime:
        """The first wall time after the ones the change leaves out or repeats (naive)."""
        return self.at.replace(tzinfo=None) + max(self.before, self.after)

    @property
    def shift(self) -> timedelta:
        return self.after - self.before


def transitions(zone: tzinfo, start: datetime, end: datetime) -> list[Transition]:
    """Offset changes of `zone` at instants in (`start`, `end`], ascending (aware bounds)."""
    key = getattr(zone, "key", None)
    if not isinstance(key, str):
        return []
    low, high = _seconds(start), _seconds(end)
    found = _explicit(key, low, high) + _by_rule(key, low, high)
    return [Transition(_EPOCH + timedelta(seconds=s), b, a) for s, b, a in found]


@lru_cache(maxsize=256)
def _reference(key: str) -> Any:
    return _zoneinfo.ZoneInfo.no_cache(key)


def _explicit(key: str, low: int, high: int) -> list[tuple[int, timedelta, timedelta]]:
    zone = _reference(key)
    instants: list[int] = zone._trans_utc
    infos = zone._ttinfos
    out = []
    for index in range(bisect.bisect_right(instants, low), bisect.bisect_right(instants, high)):
        before = infos[index - 1] if index else zone._tti_before
        if before.utcoff != infos[index].utcoff:
            out.append((instants[index], before.utcoff, infos[index].utcoff))
    return out


def _by_rule(key: str, low: int, high: int) -> list[tuple[int, timedelta, timedelta]]:
    """The yearly POSIX rule's changes after the last explicit transition."""
    zone = _reference(key)
    rule = zone._tz_after
    if not hasattr(rule, "transitions"):
        return []
    after = max(low, zone._trans_utc[-1] if zone._trans_utc else low)
    first_year = max(1, _year(after) - 1)
    out = []
    for year in range(first_year, min(_year(high), 9998) + 1):
        starts, ends = rule.transitions(year)
        std, dst = rule.std.utcoff, rule.dst.utcoff
        for at, before, later in (
            (int(starts - std.total_seconds()), std, dst),
            (int(ends - dst.total_seconds()), dst, std),
        ):
            if after < at <= high and before != later:
                out.append((at, before, later))
    return sorted(out)


def _seconds(instant: datetime) -> int:
    return int((instant.astimezone(UTC) - _EPOCH).total_seconds())


def _year(seconds: int) -> int:
    try:
        return (_EPOCH + timedelta(seconds=seconds)).year
    except OverflowError:
        return 9999 if seconds > 0 else 1
