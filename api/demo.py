"""The demo tenant `cadenza serve` creates in an empty database: a newcomer can try it at once."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from engine.domain.records import RuleSpec
from engine.service import EngineService
from tenants.keys import IssuedKey
from tenants.registry import create_tenant, list_tenants

DEMO_TENANT = "demo"


async def ensure_demo_tenant(engine: AsyncEngine) -> IssuedKey | None:
    """Create the demo tenant if there is no tenant at all; its key is returned once."""
    async with engine.begin() as conn:
        if await list_tenants(conn, limit=1):
            return None
        _, issued = await create_tenant(conn, DEMO_TENANT)
    return issued


#: The demo tenant's sample rule: every minute, count the runs in kv and emit an event. It is
#: made paused, so that its events do not fill the feed of a newcomer following the quickstart
#: (docs/quickstart.md says how to resume it).
DEMO_RULE = RuleSpec(
    name="count every minute",
    description="A sample rule, made paused: resume it to count its runs in the key "
    "'demo:count' and emit 'demo.tick' every minute.",
    schedule="every 1m",
    enabled=False,
    code=(
        "def main(ctx):\n"
        "    count = ctx.kv.get('demo:count', 0) + 1\n"
        "    ctx.kv.set('demo:count', count)\n"
        "    ctx.emit('demo.tick', {'count': count, 'occurrence': ctx.occurrence_id})\n"
        "    return count\n"
    ),
)


async def add_demo_rule(service: EngineService, issued: IssuedKey) -> None:
    """Give the new demo tenant its sample rule."""
    await service.create_rule(issued.key.tenant_id, DEMO_RULE)
