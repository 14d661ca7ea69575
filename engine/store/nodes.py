"""Node-wide statements: what is due next, tenant leases, run-lease heartbeat and sweeping."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import delete, func, or_, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import actions, engine_nodes
from tenants.tables import tenant_leases, tenants


async def upcoming(
    conn: AsyncConnection,
    node: str,
    now: datetime,
    exclude_tenants: Iterable[str],
    limit: int,
    *,
    use_leases: bool,
) -> list[tuple[str, datetime]]:
    """(tenant, due_at) of the earliest pending actions of active tenants this node may run:
    tenants it leases, or whose lease is free or expired (or any, without leases)."""
    source = actions.join(tenants, tenants.c.id == actions.c.tenant_id)
    query = select(actions.c.tenant_id, actions.c.due_at).where(
        actions.c.status == "pending", tenants.c.status == "active"
    )
    if use_leases:
        source = source.outerjoin(tenant_leases, tenant_leases.c.tenant_id == actions.c.tenant_id)
        query = query.where(
            or_(
                tenant_leases.c.tenant_id.is_(None),
                tenant_leases.c.node == node,
                tenant_leases.c.lease_until < now,
            )
        )
    excluded = list(exclude_tenants)
    if excluded:
        query = query.where(actions.c.tenant_id.not_in(excluded))
    query = query.select_from(source).order_by(actions.c.due_at).limit(limit)
    return [(row.tenant_id, row.due_at) for row in await conn.execute(query)]


async def acquire_lease(
    conn: AsyncConnection, tenant_id: str, node: str, now: datetime, until: datetime
) -> bool:
    """Take the tenant's lease if it is free, expired or already ours."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(tenant_leases).values(
        tenant_id=tenant_id, node=node, lease_until=until
    )
    statement = statement.on_conflict_do_update(
        index_elements=["tenant_id"],
        set_={"node": node, "lease_until": until, "version": tenant_leases.c.version + 1},
        where=or_(tenant_leases.c.node == node, tenant_leases.c.lease_until < now),
    ).returning(tenant_leases.c.node)
    return (await conn.execute(statement)).first() is not None


async def renew_leases(
    conn: AsyncConnection, node: str, until: datetime, in_flight: Sequence[int]
) -> None:
    """Extend this node's tenant leases and the leases of the runs it still has in flight
    (a claim it gave up on is left to expire, so the sweeper can return it)."""
    await conn.execute(
        update(tenant_leases).where(tenant_leases.c.node == node).values(lease_until=until)
    )
    for start in range(0, len(in_flight), 500):
        await conn.execute(
            update(actions)
            .where(
                actions.c.id.in_(in_flight[start : start + 500]),
                actions.c.claimed_by == node,
                actions.c.status == "running",
                actions.c.lease_until < until,
            )
            .values(lease_until=until)
        )


async def release(conn: AsyncConnection, node: str) -> list[str]:
    """On a clean stop: give back this node's tenant leases and unfinished claims at once."""
    await conn.execute(delete(tenant_leases).where(tenant_leases.c.node == node))
    result = await conn.execute(
        update(actions)
        .where(actions.c.claimed_by == node, actions.c.status == "running")
        .values(status="pending", claimed_by=None, lease_until=None, version=actions.c.version + 1)
        .returning(actions.c.tenant_id)
    )
    return sorted({row.tenant_id for row in result})


async def reclaim_expired(
    conn: AsyncConnection, now: datetime, limit: int = 500
) -> tuple[list[RowMapping], list[RowMapping]]:
    """Running actions whose lease expired (their node died): back to pending, due now, with
    the lost attempt counted; or failed when no attempt is left. Returns (returned, failed)."""
    query = (
        select(actions)
        .where(actions.c.status == "running", actions.c.lease_until < now)
        .order_by(actions.c.lease_until)
        .limit(limit)
    )
    rows = list((await conn.execute(query)).mappings())
    retry = [r for r in rows if r["attempt"] < r["max_attempts"]]
    fail = [r for r in rows if r["attempt"] >= r["max_attempts"]]
    returned = await _finish_claims(conn, retry, status="pending", due_at=now)
    failed = await _finish_claims(conn, fail, status="failed", reason="lease_lost", finished_at=now)
    return [r for r in retry if r["id"] in returned], [r for r in fail if r["id"] in failed]


async def _finish_claims(
    conn: AsyncConnection, rows: list[RowMapping], **values: object
) -> set[int]:
    if not rows:
        return set()
    statement = (
        update(actions)
        .where(
            tuple_(actions.c.id, actions.c.version).in_([(r["id"], r["version"]) for r in rows]),
            actions.c.status == "running",
        )
        .values(**values, claimed_by=None, lease_until=None, version=actions.c.version + 1)
        .returning(actions.c.id)
    )
    return {row.id for row in await conn.execute(statement)}


async def due_count(conn: AsyncConnection, now: datetime) -> int:
    query = (
        select(func.count())
        .select_from(actions)
        .where(actions.c.status == "pending", actions.c.due_at <= now)
    )
    return int((await conn.execute(query)).scalar_one())


async def heartbeat(conn: AsyncConnection, node: str, now: datetime) -> None:
    """Say this node is alive (it counts in the fair share of tenants)."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(engine_nodes).values(name=node, heartbeat_at=now)
    statement = statement.on_conflict_do_update(index_elements=["name"], set_={"heartbeat_at": now})
    await conn.execute(statement)


async def fair_share(conn: AsyncConnection, node: str, now: datetime, since: datetime) -> int:
    """How many tenant leases this node may hold: the leased tenants (plus one) split over the
    nodes alive since `since`, rounded up."""
    alive = (
        select(func.count()).select_from(engine_nodes).where(engine_nodes.c.heartbeat_at >= since)
    )
    leased = (
        select(func.count()).select_from(tenant_leases).where(tenant_leases.c.lease_until >= now)
    )
    nodes_alive = max(1, int((await conn.execute(alive)).scalar_one()))
    tenants_leased = int((await conn.execute(leased)).scalar_one())
    return -(-(tenants_leased + 1) // nodes_alive)


async def held_count(conn: AsyncConnection, node: str, now: datetime) -> int:
    query = (
        select(func.count())
        .select_from(tenant_leases)
        .where(tenant_leases.c.node == node, tenant_leases.c.lease_until >= now)
    )
    return int((await conn.execute(query)).scalar_one())


async def release_tenant(conn: AsyncConnection, tenant_id: str, node: str) -> None:
    await conn.execute(
        delete(tenant_leases).where(
            tenant_leases.c.tenant_id == tenant_id, tenant_leases.c.node == node
        )
    )


async def forget_node(conn: AsyncConnection, node: str) -> None:
    await conn.execute(delete(engine_nodes).where(engine_nodes.c.name == node))
