"""Node-wide statements: what is due next, tenant leases, run-lease heartbeat and sweeping."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.records import ActionStatus
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
        actions.c.status == ActionStatus.PENDING, tenants.c.status == "active"
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
                actions.c.status == ActionStatus.RUNNING,
                actions.c.lease_until < until,
            )
            .values(lease_until=until)
        )


async def release(conn: AsyncConnection, node: str) -> None:
    """On a clean stop: give back this node's tenant leases at once (its claims were given
    back or taken back before: `engine.loop.stopping`)."""
    await conn.execute(delete(tenant_leases).where(tenant_leases.c.node == node))


async def due_count(conn: AsyncConnection, now: datetime) -> int:
    query = (
        select(func.count())
        .select_from(actions)
        .where(actions.c.status == ActionStatus.PENDING, actions.c.due_at <= now)
    )
    return int((await conn.execute(query)).scalar_one())


async def heartbeat(conn: AsyncConnection, node: str, now: datetime) -> None:
    """Say this node is alive (it counts in the fair share of tenants)."""
    await conn.execute(
        update(engine_nodes).where(engine_nodes.c.name == node).values(heartbeat_at=now)
    )


async def get_node(conn: AsyncConnection, name: str) -> RowMapping | None:
    query = select(engine_nodes).where(engine_nodes.c.name == name)
    return (await conn.execute(query)).mappings().first()


async def take_name(
    conn: AsyncConnection,
    name: str,
    previous: RowMapping | None,
    host: str,
    incarnation: str,
    now: datetime,
) -> bool:
    """Hold `name` for this process if its row is still `previous` (None: no row); whether
    it did (another process starting at the same moment may take it first)."""
    values = {"host": host, "incarnation": incarnation, "heartbeat_at": now}
    if previous is None:
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        statement = dialect.insert(engine_nodes).values(name=name, **values)
        result = await conn.execute(statement.on_conflict_do_nothing(index_elements=["name"]))
        return result.rowcount == 1
    result = await conn.execute(
        update(engine_nodes)
        .where(
            engine_nodes.c.name == name,
            engine_nodes.c.heartbeat_at == previous["heartbeat_at"],
            engine_nodes.c.incarnation.is_not_distinct_from(previous["incarnation"]),
        )
        .values(**values)
    )
    return result.rowcount == 1


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
