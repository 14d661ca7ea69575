"""A rule whose script always fails, started on a controllable clock: what the retry tests
share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from engine.clock import ManualClock
from engine.domain.records import Rule, RuleSpec, Run
from engine.service import EngineService

FAILING = "def main(ctx):\n    raise ValueError('boom')\n"

#: `eventually(lambda: probe(n))`: the rule's runs once there are at least n, else None.
RunsProbe = Callable[[int], Awaitable[list[Run] | None]]


async def start_failing_rule(
    service: EngineService, tenant_id: str, clock: ManualClock, max_attempts: int
) -> tuple[Rule, RunsProbe]:
    """A minutely rule that raises every time (retried after 1 s), the engine started and the
    clock at its first occurrence; and a probe of its runs."""
    spec = RuleSpec(
        name="f",
        schedule="* * * * *",
        code=FAILING,
        max_attempts=max_attempts,
        backoff_s=1,
        backoff_max_s=1,
    )
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    clock.set(rule.next_run_at)  # type: ignore[arg-type]

    async def runs(n: int) -> list[Run] | None:
        found = (await service.list_runs(tenant_id, rule_id=rule.id)).items
        return found if len(found) >= n else None

    return rule, runs
