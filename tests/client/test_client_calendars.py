"""Calendars through the typed client, blocking and async, against a live server: the calls
of docs/calendars.md, typed records back, and the server's refusals as typed exceptions."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from cadenza_client import AsyncClient, Calendar, Client, InvalidRule, InvalidState, NewRule

CODE = "def main(ctx):\n    pass\n"
BERLIN = ZoneInfo("Europe/Berlin")
SCHEDULE = "FREQ=DAILY;BYHOUR=9;BYMINUTE=0"


def _tomorrow() -> date:
    return datetime.now(BERLIN).date() + timedelta(days=1)


def test_calendar_named_by_a_rule_skips_its_dates_and_guards_its_delete(editor: Client) -> None:
    holiday = _tomorrow()
    made = editor.calendars.put("Holidays DE", excluded=[holiday], description="DE")
    assert isinstance(made, Calendar) and made.excluded == (holiday,) and made.version == 1
    rule = editor.rules.create(
        NewRule(
            name="stand-up",
            schedule=SCHEDULE,
            code=CODE,
            timezone="Europe/Berlin",
            calendars=["Holidays DE"],
        )
    )
    assert rule.calendars == ["Holidays DE"]
    assert rule.next_run_at is not None
    assert rule.next_run_at.astimezone(BERLIN).date() != holiday
    preview = editor.schedules.preview(
        SCHEDULE, timezone="Europe/Berlin", calendars=["Holidays DE"], count=3
    )
    assert [s.at.date() for s in preview.skipped] == [holiday]
    assert preview.skipped[0].note == "skipped: holiday (calendar 'Holidays DE')"
    assert [r.id for r in editor.calendars.get("Holidays DE").rules] == [rule.id]
    with pytest.raises(InvalidState) as in_use:
        editor.calendars.delete("Holidays DE")
    assert rule.id in str(in_use.value)
    with pytest.raises(InvalidRule) as unknown:
        editor.rules.create(NewRule(name="x", schedule=SCHEDULE, code=CODE, calendars=["nope"]))
    assert unknown.value.errors[0].field == "calendars"


async def test_async_client_lists_pages_and_deletes(async_editor: AsyncClient) -> None:
    for name in ("c", "a", "b"):
        await async_editor.calendars.put(name, excluded=[date(2030, 1, 1)])
    names = [c.name async for c in async_editor.calendars.list(limit=2)]
    assert names == ["a", "b", "c"]
    await async_editor.calendars.delete("a")
    assert [c.name async for c in async_editor.calendars.list()] == ["b", "c"]
