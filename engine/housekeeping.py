"""The node's periodic duties: renew leases (tenants and runs in flight), sweep runs whose node
died, measure the backlog; plus webhook delivery and retention."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine import metrics
from engine.delivery import delivery_loop
from engine.retention import retention_loop
from engine.store import nodes, outbox, runs

if TYPE_CHECKING:
    from engine.node import Node

log = logging.getLogger("cadenza.engine")


def housekeeping_loops(node: Node) -> list[Coroutine[Any, Any, None]]:
    return [
        _every(node, node.deps.config.lease_s / 3, _renew),
        _every(node, node.deps.config.sweep_interval_s, sweep),
        delivery_loop(node.deps),
        retention_loop(node.deps),
    ]


async def _every(node: Node, period_s: float, duty: Any) -> None:
    while True:
        try:
            await duty(node)
        except Exception:
            log.exception(
                "engine housekeeping %s failed; retrying in %.1f s", duty.__name__, period_s
            )
        await asyncio.sleep(period_s)


async def _renew(node: Node) -> None:
    """Heartbeat, renew leases, and give up tenants beyond this node's fair share."""
    config = node.deps.config
    now = node.deps.clock.now()
    until = now + timedelta(seconds=config.lease_s)
    async with node.deps.write() as conn:
        await nodes.heartbeat(conn, config.node_name, now)
        await nodes.renew_leases(conn, config.node_name, until, node.in_flight_ids())
        if config.use_tenant_leases:
            await node.rebalance(conn, now)


async def sweep(node: Node) -> None:
    """Return runs whose node died to pending (or fail them), recording the lost attempt."""
    now = node.deps.clock.now()
    async with node.deps.write() as conn:
        returned, failed = await nodes.reclaim_expired(conn, now)
        await _record_lost(conn, [*returned, *failed], failed, now)
        metrics.QUEUE_DEPTH.set(await nodes.due_count(conn, now))
    metrics.RECLAIMED.inc(len(returned) + len(failed))
    for row in [*returned, *failed]:
        node.wake(row["tenant_id"])


def _lost_run(r: RowMapping, now: datetime) -> dict[str, Any]:
    node = r["claimed_by"] or "unknown"
    return {
        "tenant_id": r["tenant_id"],
        "action_id": r["id"],
        "rule_id": r["rule_id"],
        "attempt": r["attempt"],
        "node": node,
        "runtime": r["runtime"] or "python",
        "planned_at": r["due_at"],
        "started_at": now,
        "finished_at": now,
        "outcome": "crashed",
        "error": f"the node running this attempt ({node}) stopped renewing its lease; "
        "the attempt was lost",
        "duration_ms": 0.0,
        "lateness_ms": max(0.0, (now - r["due_at"]).total_seconds() * 1000),
        "committed": False,
    }


def _failed_event(r: RowMapping, now: datetime) -> dict[str, Any]:
    payload = {
        "action_id": r["id"],
        "rule_id": r["rule_id"],
        "attempts": r["attempt"],
        "outcome": "crashed",
    }
    return {
        "tenant_id": r["tenant_id"],
        "type": "run.failed",
        "source": "engine",
        "payload": payload,
        "rule_id": r["rule_id"],
        "action_id": r["id"],
        "created_at": now,
    }


async def _record_lost(
    conn: AsyncConnection, lost: Sequence[RowMapping], failed: Sequence[RowMapping], now: datetime
) -> None:
    """A lost attempt is a run too (outcome crashed, nothing committed)."""
    lost_runs = [_lost_run(r, now) for r in lost]
    await runs.insert_runs(conn, lost_runs)
    metrics.count_runs(lost_runs)
    await outbox.insert_events(conn, [_failed_event(r, now) for r in failed])
