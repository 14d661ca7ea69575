"""The counters an operator alerts on equal the records: after a mixed run (misfires, failures,
timeouts, pauses, edits, deletes, cancels), every run-outcome counter and every not-run counter
moved by exactly what the database holds.

Counters are per process and this process ran other tests before, so what is compared is how
much each counter moved during this test, against a fresh database."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from prometheus_client import REGISTRY
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import RuleSpec
from engine.service import EngineService
from engine.store.tables import actions, runs

OK = "def main(ctx):\n    return 1\n"
FAILS = "def main(ctx):\n    raise ValueError('no')\n"
SPINS = "def main(ctx):\n    while True:\n        pass\n"
NOT_RUN = ("skipped", "expired", "cancelled")


def _samples(name: str) -> Counter[tuple[tuple[str, str], ...]]:
    found: Counter[tuple[tuple[str, str], ...]] = Counter()
    for family in REGISTRY.collect():
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = int(sample.value)
    return found


def _moved(before: Counter, after: Counter) -> dict:  # type: ignore[type-arg]
    return {
        labels: after[labels] - before[labels]
        for labels in after
        if after[labels] != before[labels]
    }


async def _records(db: AsyncEngine) -> tuple[dict, dict]:  # type: ignore[type-arg]
    async with db.connect() as conn:
        by_outcome = await conn.execute(
            select(runs.c.runtime, runs.c.outcome, func.count()).group_by(
                runs.c.runtime, runs.c.outcome
            )
        )
        run_counts = {
            (("outcome", outcome), ("runtime", runtime)): n for runtime, outcome, n in by_outcome
        }
        by_reason = await conn.execute(
            select(actions.c.reason, func.count())
            .where(actions.c.status.in_(NOT_RUN), actions.c.reason != "dst_gap")
            .group_by(actions.c.reason)
        )
        skip_counts = {(("reason", reason),): n for reason, n in by_reason}
    return run_counts, skip_counts


async def _settled(service: EngineService, tenant_id: str, clock: ManualClock) -> bool:
    """Nothing due is pending or running."""
    page = await service.list_actions(tenant_id, limit=200)
    return not [
        a for a in page.items if a.status in ("pending", "running") and a.due_at <= clock.now()
    ]


async def test_run_and_not_run_counters_equal_the_records(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    runs_before = _samples("cadenza_runs_total")
    skips_before = _samples("cadenza_actions_not_run_total")
    minutely = {"schedule": "* * * * *", "max_attempts": 1}
    await service.create_rule(tenant_id, RuleSpec(name="late", code=OK, **minutely))
    await service.create_rule(tenant_id, RuleSpec(name="fails", code=FAILS, **minutely))
    await service.create_rule(
        tenant_id, RuleSpec(name="spins", code=SPINS, timeout_ms=200, **minutely)
    )
    skipper = await service.create_rule(
        tenant_id, RuleSpec(name="skip", code=OK, misfire_policy="skip", **minutely)
    )
    paused = await service.create_rule(tenant_id, RuleSpec(name="paused", code=OK, **minutely))
    edited = await service.create_rule(tenant_id, RuleSpec(name="edited", code=OK, **minutely))
    gone = await service.create_rule(tenant_id, RuleSpec(name="gone", code=OK, **minutely))
    await service.pause_rule(tenant_id, paused.id)
    await service.update_rule(tenant_id, edited.id, {"code": FAILS})
    await service.delete_rule(tenant_id, gone.id)
    one_off = await service.submit_action(tenant_id, run_at=START + timedelta(hours=1), code=OK)
    await service.cancel_action(tenant_id, one_off.action.id)
    clock.set(START + timedelta(minutes=5, seconds=30))  # 09:01-09:05 come due at once: misfires
    await service.resume_rule(tenant_id, paused.id)  # the pause skipped 09:01-09:05
    await service.start()
    await eventually(lambda: _settled(service, tenant_id, clock), timeout_s=60)
    clock.advance(timedelta(minutes=1))  # one more minute, on time
    await eventually(lambda: _settled(service, tenant_id, clock), timeout_s=60)
    await service.stop()  # every ended run is recorded
    run_counts, skip_counts = await _records(db)
    assert _moved(runs_before, _samples("cadenza_runs_total")) == run_counts
    assert _moved(skips_before, _samples("cadenza_actions_not_run_total")) == skip_counts
    reasons = {dict(labels)["reason"] for labels in skip_counts}
    outcomes = {dict(labels)["outcome"] for labels in run_counts}
    assert {"misfire", "paused", "rule_changed", "rule_deleted", "user"} <= reasons
    assert {"ok", "error", "timeout"} <= outcomes
    assert skipper.misfire_policy == "skip"
