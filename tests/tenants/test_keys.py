"""API keys: shown once, stored hashed, authenticate until revoked."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.errors import Conflict, InvalidInput, NotFound
from tenants.keys import Role, create_key, revoke_key
from tenants.registry import authenticate, create_tenant, find_tenant
from tenants.tables import api_keys


async def test_key_authenticates_and_is_stored_only_as_hash(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        tenant, issued = await create_tenant(conn, "acme")
    async with db.connect() as conn:
        found = await authenticate(conn, issued.secret)
        stored = (await conn.execute(select(api_keys.c.hash, api_keys.c.prefix))).all()
    assert found is not None and found[1] == tenant
    assert found[0].tenant_id == tenant.id and found[0].role is Role.ADMIN
    assert all(issued.secret not in (h, p) for h, p in stored)
    assert issued.secret.startswith(stored[0].prefix)


async def test_revoked_key_no_longer_authenticates(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "acme")
        viewer = await create_key(conn, tenant.id, Role.VIEWER)
        await revoke_key(conn, viewer.key.id)
    async with db.connect() as conn:
        assert await authenticate(conn, viewer.secret) is None
        assert await authenticate(conn, viewer.secret + "x") is None


async def test_key_of_other_tenant_cannot_be_revoked_through_its_tenant(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        a, _ = await create_tenant(conn, "a")
        _, b_key = await create_tenant(conn, "b")
        with pytest.raises(NotFound):
            await revoke_key(conn, b_key.key.id, tenant_id=a.id)
    async with db.connect() as conn:
        assert await authenticate(conn, b_key.secret) is not None


async def test_duplicate_and_malformed_tenant_names_change_nothing(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        await create_tenant(conn, "acme")
    async with db.begin() as conn:
        with pytest.raises(Conflict, match="already exists"):
            await create_tenant(conn, "acme")
        with pytest.raises(InvalidInput, match="not valid"):
            await create_tenant(conn, "../etc")
        with pytest.raises(InvalidInput, match="unknown role"):
            await create_key(conn, (await find_tenant(conn, "acme")).id, "root")
    async with db.connect() as conn:
        assert len((await conn.execute(select(api_keys))).all()) == 1
