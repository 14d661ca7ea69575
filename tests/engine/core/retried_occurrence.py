"""An occurrence whose first attempt fails after its calls, run twice by the engine: for the
tests of what a retry presents again (idempotency keys of HTTP and capability calls)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import RuleSpec
from engine.service import EngineService

FAIL_FIRST = (
    "    if ctx.attempt == 1:\n"
    "        raise ValueError('first attempt fails after its calls')\n"
    "    return ctx.attempt\n"
)


async def run_twice(
    service: EngineService, tenant_id: str, clock: ManualClock, calls: str
) -> list[Any]:
    """The two runs of an occurrence of `def main(ctx):` + `calls` + FAIL_FIRST, oldest first."""
    code = "def main(ctx):\n" + calls + FAIL_FIRST
    spec = RuleSpec(name="retried", schedule="* * * * *", code=code, max_attempts=2, backoff_s=1)
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    assert rule.next_run_at is not None
    clock.set(rule.next_run_at)

    async def runs(count: int) -> list[Any] | None:
        found = (await service.list_runs(tenant_id, rule_id=rule.id)).items
        return (
            [await service.get_run(tenant_id, r.id) for r in found] if len(found) >= count else None
        )

    await eventually(lambda: runs(1))
    clock.advance(timedelta(seconds=30))
    return sorted(await eventually(lambda: runs(2)), key=lambda run: run.attempt)
