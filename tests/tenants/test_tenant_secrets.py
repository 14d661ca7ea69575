"""A tenant's script secrets: sealed to their tenant and name, replaced in place, listed by
name only, bounded, and re-sealed by a key rotation like every stored secret."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants import secrets, tenant_secrets
from tenants.errors import InvalidInput
from tenants.registry import create_tenant
from tenants.secret_box import KeyRing, SecretBox, SecretKeyError, new_key
from tenants.tables import tenant_secrets as table

NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
VALUE = "sk_live_0123456789"


async def _two_tenants(db: AsyncEngine) -> tuple[str, str]:
    async with db.begin() as conn:
        a, _ = await create_tenant(conn, "a")
        b, _ = await create_tenant(conn, "b")
    return a.id, b.id


async def _read(db: AsyncEngine, box: SecretBox, tenant_id: str, name: str) -> str | None:
    async with db.connect() as conn:
        return await tenant_secrets.read(conn, box, tenant_id, name)


async def test_a_secret_is_set_replaced_listed_and_removed_per_tenant(db: AsyncEngine) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    a, b = await _two_tenants(db)
    async with db.begin() as conn:
        await tenant_secrets.put(conn, box, a, "stripe", VALUE, NOW)
        await tenant_secrets.put(conn, box, a, "stripe", VALUE + "-v2", NOW)
        await tenant_secrets.put(conn, box, b, "stripe", "another-tenant-value", NOW)
    assert await _read(db, box, a, "stripe") == VALUE + "-v2"
    assert await _read(db, box, b, "stripe") == "another-tenant-value"
    assert await _read(db, box, a, "absent") is None
    async with db.connect() as conn:
        assert [s.name for s in await tenant_secrets.names(conn, a)] == ["stripe"]
        sealed = (await conn.execute(select(table.c.sealed))).scalars().all()
    assert all(VALUE not in s for s in sealed)
    async with db.begin() as conn:
        assert await tenant_secrets.remove(conn, a, "stripe")
        assert not await tenant_secrets.remove(conn, a, "stripe")
    assert await _read(db, box, a, "stripe") is None
    assert await _read(db, box, b, "stripe") == "another-tenant-value"


async def test_a_sealed_value_copied_to_another_name_does_not_open(db: AsyncEngine) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        await tenant_secrets.put(conn, box, a, "stripe", VALUE, NOW)
        await tenant_secrets.put(conn, box, a, "slack", "xoxb-00000000", NOW)
        stripe = await conn.execute(select(table.c.sealed).where(table.c.name == "stripe"))
        await conn.execute(
            update(table).where(table.c.name == "slack").values(sealed=stripe.scalar_one())
        )
    with pytest.raises(SecretKeyError, match="altered or copied"):
        await _read(db, box, a, "slack")


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("", VALUE, "not valid"),  # empty name
        ("1abc", VALUE, "not valid"),  # starts with a digit
        ("a b", VALUE, "not valid"),  # space
        ("a" * 65, VALUE, "not valid"),  # too long
        ("short", "1234567", "at least 8"),  # too short to redact
        ("nul", "abcdefgh\x00", "without NUL"),
        ("big", "x" * 4097, "at most 4096"),
        ("marker", "[secret]", "redaction mark"),
    ],
)
async def test_bad_names_and_values_are_refused_and_change_nothing(
    db: AsyncEngine, name: str, value: str, reason: str
) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    a, _ = await _two_tenants(db)
    with pytest.raises(InvalidInput, match=reason):
        async with db.begin() as conn:
            await tenant_secrets.put(conn, box, a, name, value, NOW)
    async with db.connect() as conn:
        assert await tenant_secrets.names(conn, a) == []


async def test_a_tenant_holds_at_most_max_secrets(
    db: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tenant_secrets, "MAX_SECRETS", 3)
    box = SecretBox(KeyRing((new_key(),)))
    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        for i in range(3):
            await tenant_secrets.put(conn, box, a, f"s{i}", VALUE, NOW)
        await tenant_secrets.put(conn, box, a, "s0", VALUE + "x", NOW)  # a replacement fits
    with pytest.raises(InvalidInput, match="already has 3 secrets"):
        async with db.begin() as conn:
            await tenant_secrets.put(conn, box, a, "s3", VALUE, NOW)


async def test_concurrent_puts_of_one_name_leave_one_row(db: AsyncEngine) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    a, _ = await _two_tenants(db)

    async def put(i: int) -> None:
        async with db.begin() as conn:
            await tenant_secrets.put(conn, box, a, "shared", f"{VALUE}-{i}", NOW)

    await asyncio.gather(*(put(i) for i in range(8)))
    async with db.connect() as conn:
        assert len(await tenant_secrets.names(conn, a)) == 1
    assert (await _read(db, box, a, "shared") or "").startswith(VALUE)


async def test_rotation_reseals_named_secrets_and_they_still_open(db: AsyncEngine) -> None:
    old = SecretBox(KeyRing((new_key(),)))
    a, _ = await _two_tenants(db)
    async with db.begin() as conn:
        await tenant_secrets.put(conn, old, a, "stripe", VALUE, NOW)
    new = SecretBox(KeyRing((new_key(), *old.ring.keys)))
    async with db.begin() as conn:
        assert await secrets.reseal_batch(conn, new, -1, 100) > 0
    only_new = SecretBox(KeyRing(new.ring.keys[:1]))
    assert await _read(db, only_new, a, "stripe") == VALUE
