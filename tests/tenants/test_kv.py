"""Tenant key-value data: bounded, JSON only, scoped to one tenant, batch writes."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants import kv
from tenants.errors import InvalidInput
from tenants.registry import create_tenant


async def _two_tenants(db: AsyncEngine) -> tuple[str, str]:
    async with db.begin() as conn:
        a, _ = await create_tenant(conn, "a")
        b, _ = await create_tenant(conn, "b")
    return a.id, b.id


async def test_values_are_scoped_to_their_tenant(db: AsyncEngine) -> None:
    a, b = await _two_tenants(db)
    async with db.begin() as conn:
        await kv.put_value(conn, a, "counter", {"n": 1})
        await kv.put_value(conn, b, "counter", {"n": 99})
        await kv.put_value(conn, a, "counter", {"n": 2})
    async with db.connect() as conn:
        got_a = await kv.get_item(conn, a, "counter")
        got_b = await kv.get_item(conn, b, "counter")
    assert got_a is not None and got_a.value == {"n": 2}
    assert got_b is not None and got_b.value == {"n": 99}


async def test_batch_writes_and_deletes_then_prefix_pages(db: AsyncEngine) -> None:
    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        await kv.apply_writes(conn, a, {f"user:{i:02}": i for i in range(5)} | {"other": 1})
        await kv.apply_writes(conn, a, {"user:03": kv.DELETED, "user:04": "four"})
    async with db.connect() as conn:
        first = await kv.list_items(conn, a, prefix="user:", limit=2)
        rest = await kv.list_items(conn, a, prefix="user:", after=first[-1].key)
    assert [i.key for i in first] == ["user:00", "user:01"]
    assert [(i.key, i.value) for i in rest] == [("user:02", 2), ("user:04", "four")]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("", 1, "not valid"),
        ("k" * 257, 1, "not valid"),
        ("bad\nkey", 1, "not valid"),
        ("k", {1, 2}, "not JSON"),
        ("k", float("nan"), "not JSON"),
        ("k", "x" * 70_000, "larger than"),
    ],
    ids=["empty-key", "long-key", "control-char", "set-value", "nan-value", "huge-value"],
)
async def test_bad_keys_and_values_change_nothing(
    db: AsyncEngine, key: str, value: object, message: str
) -> None:
    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        with pytest.raises(InvalidInput, match=message):
            await kv.apply_writes(conn, a, {"fine": 1, key: value})
    async with db.connect() as conn:
        assert await kv.list_items(conn, a) == []


async def test_str_subclass_key_is_refused(db: AsyncEngine) -> None:
    class Lying(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        with pytest.raises(InvalidInput):
            await kv.put_value(conn, a, Lying("k"), 1)
