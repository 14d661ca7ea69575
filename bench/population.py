"""Filling a database with many tenants and rules fast (bulk inserts, not the API).

Each rule runs daily at a minute of its own and has its one pending action 2-26 hours ahead,
as the engine would have planned it, so nothing falls due while the idle engine is measured.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import create_engine

from bench.databases import sync_url
from engine.store.tables import actions, rules
from tenants.tables import tenants

CHUNK = 20_000
DAY_MINUTES = 24 * 60


def _tenant_rows(count: int, now: datetime) -> list[dict[str, object]]:
    secret = secrets.token_urlsafe(32)
    return [
        {"id": f"t_bench{i:06d}", "name": f"bench-{i}", "created_at": now, "webhook_secret": secret}
        for i in range(count)
    ]


def _rule_and_action(
    index: int, tenant_id: str, now: datetime
) -> tuple[dict[str, object], dict[str, object]]:
    due_at = (now + timedelta(hours=2, minutes=index % DAY_MINUTES)).replace(
        second=0, microsecond=0
    )
    rule_id = f"r_bench{index:08d}"
    rule = {
        "id": rule_id,
        "tenant_id": tenant_id,
        "name": f"daily {index}",
        "schedule": f"FREQ=DAILY;BYHOUR={due_at.hour};BYMINUTE={due_at.minute}",
        "runtime": "python",
        "code": "def main(ctx):\n    return None\n",
        "params": {},
        "created_at": now,
        "updated_at": now,
    }
    action = {
        "tenant_id": tenant_id,
        "rule_id": rule_id,
        "rule_version": 1,
        "scheduled_at": due_at,
        "due_at": due_at,
        "status": "pending",
        "max_attempts": 3,
        "created_at": now,
    }
    return rule, action


def populate(async_url: str, tenant_count: int, rule_count: int) -> list[str]:
    """Insert tenants and rules (spread evenly) with their next actions; return tenant ids."""
    engine = create_engine(sync_url(async_url))
    now = datetime.now(UTC)
    tenant_rows = _tenant_rows(tenant_count, now)
    tenant_ids = [str(row["id"]) for row in tenant_rows]
    try:
        with engine.begin() as conn:
            conn.execute(tenants.insert(), tenant_rows)
        for start in range(0, rule_count, CHUNK):
            pairs = [
                _rule_and_action(i, tenant_ids[i % tenant_count], now)
                for i in range(start, min(start + CHUNK, rule_count))
            ]
            with engine.begin() as conn:
                conn.execute(rules.insert(), [rule for rule, _ in pairs])
                conn.execute(actions.insert(), [action for _, action in pairs])
    finally:
        engine.dispose()
    return tenant_ids
