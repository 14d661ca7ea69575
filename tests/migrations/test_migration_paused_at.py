"""Migration 0004 gives rules paused before it a pause instant: their last change."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.store import schema
from engine.store.tables import rules
from tenants.tables import tenants

CHANGED_AT = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)


def _rule(rule_id: str, tenant_id: str, *, enabled: bool) -> dict[str, object]:
    return {
        "id": rule_id,
        "tenant_id": tenant_id,
        "name": rule_id,
        "schedule": "0 12 * * *",
        "runtime": "python",
        "code": "def main(ctx):\n    return 1\n",
        "params": {},
        "enabled": enabled,
        "created_at": datetime(2030, 1, 1, tzinfo=UTC),
        "updated_at": CHANGED_AT,
    }


async def test_upgrade_to_0004_pauses_disabled_rules_at_their_last_change(db: AsyncEngine) -> None:
    await schema.downgrade(db, "0003")
    async with db.begin() as conn:
        # The columns of 0003 only: the registry reads the latest schema.
        await conn.execute(tenants.insert().values(id="t_1", name="acme", created_at=CHANGED_AT))
        await conn.execute(
            rules.insert(),
            [_rule("r_on", "t_1", enabled=True), _rule("r_off", "t_1", enabled=False)],
        )
    await schema.upgrade(db)
    async with db.connect() as conn:
        found = dict((await conn.execute(select(rules.c.id, rules.c.paused_at))).all())
    assert found == {"r_on": None, "r_off": CHANGED_AT}
