"""The node's periodic duties: renew leases (tenants and runs in flight), sweep runs whose node
died, measure the backlog; plus webhook delivery and retention."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.loop.takeback import Loss, take_back
from engine.ops import metrics
from engine.ops.retention import retention_loop
from engine.store import claims, nodes
from engine.webhooks.delivery import delivery_loop

log = logging.getLogger("cadenza.engine")


class Node(Protocol):
    """What the duties need of the supervisor that runs them (`engine.loop.supervisor`)."""

    deps: Deps
    is_stopping: bool

    def in_flight_ids(self) -> list[int]: ...
    def wake(self, tenant_id: str, change: Change) -> None: ...
    async def rebalance(self, conn: AsyncConnection, now: datetime) -> None: ...


def housekeeping_loops(node: Node) -> list[Coroutine[Any, Any, None]]:
    """The duties that stop with the dispatcher (renewal runs on until the node is gone)."""
    return [
        _every(node.deps.config.sweep_interval_s, lambda: sweep(node), "sweep"),
        delivery_loop(node.deps),
        retention_loop(node.deps),
    ]


def renewal_loop(node: Node) -> Coroutine[Any, Any, None]:
    return _every(node.deps.config.lease_s / 3, lambda: renew(node), "lease renewal")


async def _every(period_s: float, duty: Callable[[], Awaitable[None]], name: str) -> None:
    """Run `duty` every `period_s`; a failure is logged once, not once per period, while the
    database stays unreachable."""
    failing = False
    while True:
        try:
            await duty()
        except Exception:
            if not failing:
                log.exception("engine %s failed; retrying every %.1f s", name, period_s)
            failing = True
        else:
            if failing:
                log.info("engine %s works again", name)
            failing = False
        await asyncio.sleep(period_s)


async def renew(node: Node) -> None:
    """Heartbeat, renew leases, and give up tenants beyond this node's fair share."""
    config = node.deps.config
    now = node.deps.clock.now()
    until = now + timedelta(seconds=config.lease_s)
    async with node.deps.write() as conn:
        await nodes.heartbeat(conn, config.node_name, now)
        await nodes.renew_leases(conn, config.node_name, until, node.in_flight_ids())
        if config.use_tenant_leases and not node.is_stopping:
            await node.rebalance(conn, now)


async def sweep(node: Node) -> None:
    """Take back the claims of nodes that died: runs not started go back to pending as they
    were, runs that started are recorded as lost attempts and retried (or fail). This node's
    own runs in flight are not swept even if their lease lapsed (the database was away): they
    are still going, and will be recorded."""
    now = node.deps.clock.now()
    mine = set(node.in_flight_ids())
    async with node.deps.write() as conn:
        rows = await claims.expired(conn, now)
        lost = [
            r for r in rows if r["id"] not in mine or r["claimed_by"] != node.deps.config.node_name
        ]
        taken = await take_back(conn, lost, now, Loss.DIED)
        metrics.QUEUE_DEPTH.set(await nodes.due_count(conn, now))
    metrics.RECLAIMED.inc(len(taken.retried) + len(taken.failed))
    for tenant_id in {r["tenant_id"] for r in lost}:
        node.wake(tenant_id, Change.ADDED)
