"""The async client against a live server: the same calls, awaited, and pages as `async for`."""

from __future__ import annotations

import asyncio

import pytest
from cadenza_client import (
    AsyncClient,
    InvalidRule,
    NewRule,
    NotFound,
    RuleChanges,
    StaleVersion,
    ValidationFailed,
)

CODE = 'def main(ctx):\n    ctx.emit("ping", {})\n'


async def test_concurrent_creates_then_every_page_in_order(async_editor: AsyncClient) -> None:
    made = await asyncio.gather(
        *(
            async_editor.rules.create(NewRule(name=f"r{n}", schedule="every 1h", code=CODE))
            for n in range(5)
        )
    )
    listed = [rule.id async for rule in async_editor.rules.list(limit=2)]
    assert sorted(listed) == sorted(rule.id for rule in made)
    first = await async_editor.rules.page(limit=2)
    assert listed[:2] == [rule.id for rule in first.items]


async def test_versions_guard_async_writes_too(async_editor: AsyncClient) -> None:
    read = await async_editor.rules.create(NewRule(name="r", schedule="every 1h", code=CODE))
    changed = await async_editor.rules.update(read, RuleChanges(name="renamed"))
    with pytest.raises(StaleVersion) as stale:
        await async_editor.rules.delete(read)
    assert stale.value.current_version == changed.version
    await async_editor.rules.delete(changed)
    with pytest.raises(NotFound):
        await async_editor.rules.get(read)


async def test_async_errors_are_the_same_typed_problems(async_editor: AsyncClient) -> None:
    with pytest.raises(InvalidRule) as refused:
        await async_editor.rules.create(NewRule(name="r", schedule="every 1h", code="nope"))
    assert refused.value.field == "code"
    with pytest.raises(ValidationFailed) as invalid:
        await async_editor.schedules.preview("every 1h", count=0)
    assert invalid.value.field == "count"


async def test_async_data_and_the_event_feed(async_editor: AsyncClient) -> None:
    await async_editor.kv.put("a/b", [1])
    assert [item.value async for item in async_editor.kv.list(prefix="a/")] == [[1]]
    assert [event async for event in async_editor.events.list()] == []
    feed = await async_editor.events.read(limit=1)
    assert feed.items == () and feed.next_cursor
