"""The allowed units of a day of a sub-daily rule, and which of them its INTERVAL grid hits.

An HOURLY rule's units are hours, a MINUTELY rule's minutes, a SECONDLY rule's seconds. The
allowed ones are a product (BYHOUR x BYMINUTE x BYSECOND, each level a sorted list), and the
grid hits every n-th unit counted from DTSTART: the units x with x = r (mod n) for the day's
residue r. Counting them, finding the first one at or after a unit, or the k-th, is done level
by level, with the innermost level answered by arithmetic (a full range) or by a lookup in its
values grouped by residue, so the cost depends on the list lengths, never on the 86 400 seconds
of a day.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Level:
    """One level of the product: its allowed values, their count, and units per value."""

    values: tuple[int, ...]
    size: int
    weight: int

    @property
    def is_full(self) -> bool:
        return len(self.values) == self.size


@dataclass(frozen=True)
class UnitGrid:
    """Allowed units (a product of levels) and the grid step `n` (INTERVAL)."""

    levels: tuple[Level, ...]
    n: int
    _buckets: dict[int, list[int]] = field(init=False, repr=False, compare=False)
    _per_residue: dict[int, int] = field(init=False, repr=False, compare=False)
    _inner: tuple[bool, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inner = tuple(all(x.is_full for x in self.levels[d + 1 :]) for d in range(len(self.levels)))
        object.__setattr__(self, "_inner", inner)
        buckets: dict[int, list[int]] = defaultdict(list)
        for value in self.levels[-1].values:
            buckets[value % self.n].append(value)
        object.__setattr__(self, "_buckets", dict(buckets))
        object.__setattr__(self, "_per_residue", {})

    @property
    def units(self) -> int:
        return self.levels[0].size * self.levels[0].weight

    def per_day(self, residue: int) -> int:
        """Units of a whole day hit by the grid when it hits x = residue (mod n)."""
        if residue not in self._per_residue:
            self._per_residue[residue] = self.count(0, self.units, residue)
        return self._per_residue[residue]

    def count(self, low: int, high: int, residue: int) -> int:
        """Allowed units x in [low, high) with x = residue (mod n)."""
        return self._count(0, 0, low, high, residue) if low < high else 0

    def first(self, low: int, residue: int) -> int | None:
        """The least allowed unit x >= low with x = residue (mod n), or None."""
        return self._first(0, 0, low, residue)

    def kth(self, k: int, residue: int) -> int:
        """The k-th (0-based) allowed unit hit by the grid (the caller checks it exists)."""
        base = 0
        for depth, level in enumerate(self.levels[:-1]):
            for value in level.values:
                start = base + value * level.weight
                inside = self._count(depth + 1, start, start, start + level.weight, residue)
                if k < inside:
                    base = start
                    break
                k -= inside
        bucket = self._bucket(residue - base)
        return base + bucket[k]

    def _count(self, depth: int, base: int, low: int, high: int, residue: int) -> int:
        level = self.levels[depth]
        first = max(0, (low - base) // level.weight)
        last = min(level.size, -(-(high - base) // level.weight))
        if depth == len(self.levels) - 1:
            if level.is_full:
                return _aligned(max(low, base + first), min(high, base + last), residue, self.n)
            bucket = self._bucket(residue - base)
            return bisect.bisect_left(bucket, high - base) - bisect.bisect_left(bucket, low - base)
        total = 0
        for value in level.values[bisect.bisect_left(level.values, first) :]:
            if value >= last:
                break
            start = base + value * level.weight
            span_low, span_high = max(low, start), min(high, start + level.weight)
            if self._inner_full(depth):
                total += _aligned(span_low, span_high, residue, self.n)
            else:
                total += self._count(depth + 1, start, span_low, span_high, residue)
        return total

    def _first(self, depth: int, base: int, low: int, residue: int) -> int | None:
        level = self.levels[depth]
        first = max(0, (low - base) // level.weight)
        if depth == len(self.levels) - 1:
            if level.is_full:
                x = max(low, base)
                x += (residue - x) % self.n
                return x if x < base + level.size else None
            bucket = self._bucket(residue - base)
            index = bisect.bisect_left(bucket, low - base)
            return base + bucket[index] if index < len(bucket) else None
        for value in level.values[bisect.bisect_left(level.values, first) :]:
            start = base + value * level.weight
            if self._inner_full(depth):
                x = max(low, start)
                x += (residue - x) % self.n
                if x < start + level.weight:
                    return x
                continue
            found = self._first(depth + 1, start, max(low, start), residue)
            if found is not None:
                return found
        return None

    def _inner_full(self, depth: int) -> bool:
        return self._inner[depth]

    def _bucket(self, residue: int) -> list[int]:
        return self._buckets.get(residue % self.n, [])


def _aligned(low: int, high: int, residue: int, n: int) -> int:
    """Integers x in [low, high) with x = residue (mod n)."""
    if low >= high:
        return 0
    first = low + (residue - low) % n
    return 0 if first >= high else (high - 1 - first) // n + 1
