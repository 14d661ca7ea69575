"""Walking an RRULE's occurrences block by block, skipping empty years in one step.

An RRULE is evaluated as a sequence of *blocks* (its periods, or the days of a sub-daily rule)
numbered from DTSTART's block 0, each of which knows how many occurrences it holds without
generating them. Years of blocks are summed once per kind of year (see `daymask`), so finding
the next occurrence of a rare rule, the COUNT-th occurrence, or the last one before UNTIL
costs the same in 2026 as in 9000 and never depends on how many occurrences lie in between.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from engine.recurrence.errors import EvaluationBudgetExceeded

#: The last year any schedule reaches (datetime's limit).
LAST_YEAR = 9999
#: The last wall time evaluated: two days short of datetime's limit, the room DST arithmetic
#: needs (an UNTIL later than this is this).
LAST_WALL = datetime(LAST_YEAR, 12, 29, 23, 59, 59)
#: Blocks examined one by one in a single call before evaluation is abandoned.
BLOCK_BUDGET = 200_000


class Blocks(Protocol):
    """What a kind of RRULE tells the walker about its blocks (see the module docstring)."""

    dtstart: datetime

    def can_occur(self) -> bool: ...
    def block_at(self, wall: datetime) -> int: ...
    def year_of(self, block: int) -> int: ...
    def first_in_year(self, year: int) -> int | None: ...
    def last_in_year(self, year: int) -> int | None: ...
    def size(self, block: int) -> int: ...
    def year_state(self, year: int) -> tuple[int, int]: ...
    def year_size(self, year: int) -> int: ...
    def wall_at(self, block: int, index: int) -> datetime: ...
    def count_before(self, block: int, wall: datetime) -> int: ...
    def walls(self, block: int, low: datetime | None) -> Iterator[datetime]: ...
    def first_nonempty(self, first: int, last: int) -> int | None: ...


def positions(size: int, setpos: Sequence[int] | None) -> Sequence[int]:
    """The 0-based indexes BYSETPOS keeps among a period's `size` candidates, ascending."""
    if not setpos:
        return range(size)
    return sorted({p - 1 if p > 0 else size + p for p in setpos if -size <= p <= size})


def first_nonempty(blocks: Blocks, first: int, last: int) -> int | None:
    """The first block in [first, last] holding a wall, by looking at each."""
    if last - first > BLOCK_BUDGET:
        raise EvaluationBudgetExceeded(
            f"more than {BLOCK_BUDGET} blocks in one year (BLOCK_BUDGET): the rule is too dense"
        )
    return next((block for block in range(first, last + 1) if blocks.size(block)), None)


def picked(size: int, setpos: Sequence[int] | None) -> int:
    """How many of `size` candidates BYSETPOS keeps."""
    return len(positions(size, setpos)) if setpos else size


class Walker:
    """Ascending and descending walks, the n-th occurrence and counts over one rule's blocks."""

    def __init__(self, blocks: Blocks) -> None:
        self.blocks = blocks
        self._first = blocks.block_at(blocks.dtstart)
        self._year_sizes: dict[tuple[int, int], int] = {}

    def walls_from(self, low: datetime, last_year: int = LAST_YEAR) -> Iterator[datetime]:
        """Walls at or after `low` (and DTSTART), ascending, to the end of `last_year`."""
        b = self.blocks
        low = _ceil_second(low)
        block: int | None = b.block_at(max(low, b.dtstart))
        start: datetime | None = low
        while block is not None and b.year_of(block) <= last_year:
            yield from b.walls(block, start)
            block, start = self.next_block(block + 1, last_year), None

    def walls_back(self, high: datetime) -> Iterator[datetime]:
        """Walls at or before `high` (and at or after DTSTART), descending."""
        b = self.blocks
        high = high.replace(microsecond=0)
        if high < b.dtstart:
            return
        first = b.block_at(high)
        end = b.count_before(first, high) + int(self._is_wall(first, high))
        block: int | None = first
        while block is not None:
            for i in range(end - 1, -1, -1):
                yield b.wall_at(block, i)
            block = self.previous_block(block - 1)
            end = b.size(block) if block is not None else 0

    def nth(self, n: int) -> datetime | None:
        """The n-th wall (1-based) from DTSTART, or None when the calendar ends first."""
        b = self.blocks
        year = b.year_of(self._first)
        found = self._nth_in(self._first, b.last_in_year(year), n)
        if isinstance(found, datetime):
            return found
        n = found
        while year < LAST_YEAR:
            year += 1
            size = self._year_size(year)
            if n <= size:
                return self._nth_in(b.first_in_year(year), b.last_in_year(year), n)  # type: ignore[return-value]
            n -= size
        return None

    def count(self, high: datetime) -> int:
        """How many walls lie in [DTSTART, `high`]."""
        b = self.blocks
        high = high.replace(microsecond=0)
        if high < b.dtstart:
            return 0
        target = b.block_at(high)
        total = b.count_before(target, high) + int(self._is_wall(target, high))
        first_year, target_year = b.year_of(self._first), b.year_of(target)
        if first_year == target_year:
            return total + self._sizes(self._first, target - 1)
        total += self._sizes(self._first, b.last_in_year(first_year))
        total += sum(self._year_size(year) for year in range(first_year + 1, target_year))
        return total + self._sizes(b.first_in_year(target_year), target - 1)

    def next_block(self, block: int, last_year: int = LAST_YEAR) -> int | None:
        """The first block at or after `block`, up to the end of `last_year`, holding a wall."""
        b = self.blocks
        year = b.year_of(block)
        last = b.last_in_year(year)
        if last is not None and block <= last:
            found = b.first_nonempty(block, last)
            if found is not None:
                return found
        seen: set[tuple[int, int]] = set()
        while year < last_year:
            year += 1
            state = b.year_state(year)
            if state in seen:
                return None  # the years repeat a cycle that held nothing: nothing ever comes
            if self._year_size(year):
                return self.next_block(b.first_in_year(year), last_year)  # type: ignore[arg-type]
            seen.add(state)
        return None

    def previous_block(self, block: int) -> int | None:
        """The last block at or before `block` (not before block 0) holding a wall."""
        b = self.blocks
        if block < self._first:
            return None
        year = b.year_of(block)
        first = b.first_in_year(year)
        low = self._first if first is None else max(self._first, first)
        for candidate in range(block, low - 1, -1):
            if b.size(candidate):
                return candidate
        start_year = b.year_of(self._first)
        while year > start_year:
            year -= 1
            if year == start_year or self._year_size(year):
                last = b.last_in_year(year)
                if last is not None:
                    return self.previous_block(last)
        return None

    def _year_size(self, year: int) -> int:
        """Occurrences in a year after DTSTART's; a function of the year's state, so cached."""
        state = self.blocks.year_state(year)
        if state not in self._year_sizes:
            self._year_sizes[state] = self.blocks.year_size(year)
        return self._year_sizes[state]

    def _is_wall(self, block: int, wall: datetime) -> bool:
        index = self.blocks.count_before(block, wall)
        return index < self.blocks.size(block) and self.blocks.wall_at(block, index) == wall

    def _nth_in(self, first: int | None, last: int | None, n: int) -> datetime | int:
        """The n-th wall among blocks first..last, or how many walls are still wanting."""
        for block in self._range(first, last):
            size = self.blocks.size(block)
            if n <= size:
                return self.blocks.wall_at(block, n - 1)
            n -= size
        return n

    def _sizes(self, first: int | None, last: int | None) -> int:
        return sum(self.blocks.size(block) for block in self._range(first, last))

    def _range(self, first: int | None, last: int | None) -> range:
        if first is None or last is None:
            return range(0)
        if last - first > BLOCK_BUDGET:
            raise EvaluationBudgetExceeded(
                f"more than {BLOCK_BUDGET} blocks in one year (BLOCK_BUDGET): the rule is too dense"
            )
        return range(first, last + 1)


def _ceil_second(wall: datetime) -> datetime:
    """Walls are whole seconds: the first one at or after `wall`."""
    return wall.replace(microsecond=0) + timedelta(seconds=1) if wall.microsecond else wall
