"""What one save of a new rule costs: the tenant profile read once, the new rule read once, its
schedule parsed and evaluated once; and what it answers is the rule as a read finds it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.clock import ManualClock
from engine.domain import rule_schedules
from engine.domain.records import RuleSpec
from engine.recurrence import Schedule
from engine.service import EngineService

CODE = "def main(ctx):\n    return 1\n"

#: Rules of every kind of schedule, each with what sets it apart.
SPECS = {
    "cron": RuleSpec(name="tick", schedule="*/5 * * * *", code=CODE),
    # Saved the day before Berlin's spring gap: the skipped 02:30 is traced with the plan.
    "rrule-berlin-dst-gap": RuleSpec(
        name="night",
        schedule="FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
        timezone="Europe/Berlin",
        dst_gap="skip",
        code=CODE,
    ),
    "anchored-interval-with-start": RuleSpec(
        name="every",
        schedule="every 15m",
        start_at=START + timedelta(minutes=7),
        code=CODE,
    ),
    "jittered": RuleSpec(name="jitter", schedule="0 9 * * 1-5", jitter_s=300, code=CODE),
    "created-paused": RuleSpec(name="paused", schedule="0 9 * * *", enabled=False, code=CODE),
    "once": RuleSpec(name="once", schedule=(START + timedelta(days=3)).isoformat(), code=CODE),
}


@contextmanager
def statements(db: AsyncEngine) -> Iterator[list[str]]:
    """Every statement sent to the database inside the block."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        sent.append(statement)

    event.listen(db.sync_engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(db.sync_engine, "before_cursor_execute", record)


@contextmanager
def evaluations(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Schedule]]:
    """Every schedule asked for its occurrences inside the block (the real method runs)."""
    asked: list[Schedule] = []
    original = Schedule.occurrences_after

    def counted(self: Schedule, instant: Any) -> Any:
        asked.append(self)
        return original(self, instant)

    with monkeypatch.context() as patch:
        patch.setattr(Schedule, "occurrences_after", counted)
        yield asked


@contextmanager
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The text of every rule schedule compiled inside the block (every engine path to a
    rule's schedule goes through `compile_schedule`)."""
    parsed: list[str] = []
    original = rule_schedules.parse_schedule

    def counted(text: str, *args: Any, **kwargs: Any) -> Schedule:
        parsed.append(text)
        return original(text, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(rule_schedules, "parse_schedule", counted)
        yield parsed


def _reads_of(table: str, sent: list[str]) -> list[str]:
    pattern = re.compile(rf"^\s*SELECT .*\bFROM {table}\b", re.IGNORECASE | re.DOTALL)
    return [s for s in sent if pattern.match(s) and "count(" not in s.lower()]


#: When each rule is saved (else START).
SAVED_AT = {"rrule-berlin-dst-gap": datetime(2030, 3, 30, 12, 0, tzinfo=UTC)}


@pytest.mark.parametrize("kind", list(SPECS))
async def test_a_save_reads_profile_and_rule_once_and_evaluates_once(
    service: EngineService,
    tenant_id: str,
    db: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch,
    clock: ManualClock,
    kind: str,
) -> None:
    clock.set(SAVED_AT.get(kind, START))
    with statements(db) as sent, parses(monkeypatch) as parsed, evaluations(monkeypatch) as asked:
        created = await service.create_rule(tenant_id, SPECS[kind])
    assert len(_reads_of("tenants", sent)) == 1, sent
    assert len(_reads_of("rules", sent)) == 1, sent
    assert len(parsed) == 1, f"the schedule was parsed {len(parsed)} times"
    assert len(asked) == 1, f"the schedule was evaluated {len(asked)} times"
    assert created == await service.get_rule(tenant_id, created.id)
