"""What one run did to its tenant's kv data: the writes it buffered and the reads they rest on.

A run's writes are committed only if every read they rest on still holds when they commit
(optimistic concurrency, validated by value: see `tenants.kv_snapshot`). Each read is a
`Check` that names what the run relied on, no more: a value it saw (`Saw`), the answer of a
compare-and-set (`Matched`), that a key held a number when it was incremented (`WasNumber`),
the keys a listing returned (`Listed`). An increment is an `Add` applied to whatever value the
key holds at commit, so runs that only increment never conflict.

Values compare as canonical JSON text: `1`, `1.0` and `true` are different values to a script
(Python's `==` would call them equal), and absent equals `null` (a script cannot tell them
apart through `get`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tenants.kv import DELETED


def is_number(value: Any) -> bool:
    return type(value) in (int, float)


def same_value(a: Any, b: Any) -> bool:
    """Whether a script could tell `a` and `b` apart (absent and null it cannot)."""
    if a is DELETED:
        a = None
    if b is DELETED:
        b = None
    return bool(json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


@dataclass(frozen=True)
class Put:
    """Set the key to `value` (DELETED removes it)."""

    value: Any


@dataclass(frozen=True)
class Add:
    """Add `amount` to the key's number at commit (an absent key counts as 0)."""

    amount: int | float


KvWrite = Put | Add


def then(first: KvWrite | None, second: KvWrite) -> KvWrite:
    """The one write equal to `first` followed by `second` (the caller checked that an `Add`
    never follows a `Put` of something other than a number or DELETED)."""
    if isinstance(second, Put) or first is None:
        return second
    if isinstance(first, Add):
        return Add(first.amount + second.amount)
    return Put(added(first.value, second.amount))


def added(value: Any, amount: int | float) -> int | float:
    """`value` (a number, or absent/None for 0) plus `amount`."""
    return amount if value is None or value is DELETED else value + amount


class Values(Protocol):
    """What a check reads: the tenant's values as of one instant."""

    def value(self, key: str) -> Any: ...
    def keys_with(self, prefix: str, limit: int) -> list[str]: ...


class Check(Protocol):
    """One thing a run relied on; `holds` says whether it is still true of `values`."""

    def holds(self, values: Values) -> bool: ...

    @property
    def broken(self) -> str:
        """What changed, when the check no longer holds (for the run's error)."""
        ...


@dataclass(frozen=True)
class Saw:
    key: str
    value: Any

    @property
    def broken(self) -> str:
        return f"the value of {self.key!r} that the run read changed"

    def holds(self, values: Values) -> bool:
        return same_value(values.value(self.key), self.value)


@dataclass(frozen=True)
class Matched:
    """`set_if(key, expected, …)` answered `answer`: only the comparison must still hold."""

    key: str
    expected: Any
    answer: bool

    @property
    def broken(self) -> str:
        return f"set_if({self.key!r}, …) compared with a value that changed"

    def holds(self, values: Values) -> bool:
        return same_value(values.value(self.key), self.expected) is self.answer


@dataclass(frozen=True)
class WasNumber:
    """`incr(key)` found a number (or nothing) to add to."""

    key: str

    @property
    def broken(self) -> str:
        return f"{self.key!r}, which the run incremented, no longer holds a number"

    def holds(self, values: Values) -> bool:
        value = values.value(self.key)
        return value is None or is_number(value)


@dataclass(frozen=True)
class Listed:
    """`keys(prefix)` returned `keys` (the first `limit` keys with that prefix)."""

    prefix: str
    keys: tuple[str, ...]
    limit: int

    @property
    def broken(self) -> str:
        return f"the keys starting with {self.prefix!r} that the run listed changed"

    def holds(self, values: Values) -> bool:
        return tuple(values.keys_with(self.prefix, self.limit)) == self.keys


@dataclass(frozen=True)
class KvChanges:
    """One run's writes (final, per key) and the checks they rest on."""

    writes: Mapping[str, KvWrite]
    checks: Sequence[Check]

    @property
    def keys(self) -> set[str]:
        """Every key the changes read or write (listings aside)."""
        return set(self.writes) | {
            c.key for c in self.checks if isinstance(c, Saw | Matched | WasNumber)
        }

    @property
    def listings(self) -> list[Listed]:
        return [c for c in self.checks if isinstance(c, Listed)]

    def final_values(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """key -> the value (or DELETED) these writes leave, over `base` values."""
        return {
            key: write.value if isinstance(write, Put) else added(base.get(key), write.amount)
            for key, write in self.writes.items()
        }
