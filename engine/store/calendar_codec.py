"""Calendars to and from JSON: the `calendars` rows' date lists and a rule's copy of them.

A rule stores the calendars it honours as they were when its version was written, so the loop
plans from the rule row alone (no join on every claim) and a calendar edit is a new version of
each rule that uses it (`engine.service.calendar_writes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from engine.recurrence.calendars import Calendar


def dates_json(days: Iterable[date]) -> list[str]:
    """Sorted ISO dates, each once."""
    return [day.isoformat() for day in sorted(set(days))]


def dates_of(values: Iterable[str]) -> frozenset[date]:
    return frozenset(date.fromisoformat(value) for value in values)


def calendar_of(row: Mapping[Any, Any]) -> Calendar:
    """The calendar of a `calendars` row, or of one entry of a rule's `calendar_dates`."""
    return Calendar(row["name"], dates_of(row["excluded"]), dates_of(row["included"]))


def rule_copy(calendars: Sequence[Calendar]) -> list[dict[str, Any]]:
    """The `rules.calendar_dates` value of `calendars`."""
    return [
        {"name": c.name, "excluded": dates_json(c.excluded), "included": dates_json(c.included)}
        for c in calendars
    ]


def from_rule_copy(value: Sequence[Mapping[str, Any]] | None) -> tuple[Calendar, ...]:
    return tuple(calendar_of(entry) for entry in value or ())
