"""API keys: shown once, stored hashed, authenticate until revoked."""

from __future__ import annotations

import uuid

import pytest
import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.db import create_engine
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


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(st.booleans(), min_size=1, max_size=3), min_size=2, max_size=3))
def test_every_secret_authenticates_as_its_own_key_and_tenant_until_revoked(
    database_url: str, revoked: list[list[bool]]
) -> None:
    """Neighbour tenants' keys side by side, some revoked (`revoked[t][k]`: key k of tenant t):
    each live secret reads back its own key and its own tenant, never a neighbour's; a revoked,
    altered or unknown one reads back nothing."""

    async def check() -> None:
        db = create_engine(database_url)
        try:
            issued = []
            async with db.begin() as conn:
                for plan in revoked:
                    tenant, first = await create_tenant(conn, f"t{uuid.uuid4().hex[:12]}")
                    keys = [first] + [
                        await create_key(conn, tenant.id, Role.VIEWER) for _ in plan[1:]
                    ]
                    for key, is_revoked in zip(keys, plan, strict=True):
                        if is_revoked:
                            await revoke_key(conn, key.key.id)
                        issued.append((tenant, key, is_revoked))
            async with db.connect() as conn:
                for tenant, key, is_revoked in issued:
                    found = await authenticate(conn, key.secret)
                    if is_revoked:
                        assert found is None
                    else:
                        assert found is not None
                        assert (found[0].id, found[0].tenant_id, found[1]) == (
                            key.key.id,
                            tenant.id,
                            tenant,
                        )
                    assert await authenticate(conn, key.secret[:-1]) is None
        finally:
            await db.dispose()

    uvloop.run(check())
