"""Records of the loop's currency for tests of the pure steps: a rule snapshot and a due
action with sensible defaults, changed by keyword (the same records the store builds)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from engine.domain.due import DueAction, RuleSnapshot
from engine.domain.records import ActionStatus, MisfirePolicy, OverlapPolicy

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)

RULE = RuleSnapshot(
    id="r_1", tenant_id="t_1", name="rule", schedule="* * * * *", timezone="UTC",
    dst_gap="shift", dst_repeat="first", runtime="python", code="def main(ctx): pass",
    params=None, enabled=True, version=1, misfire_policy=MisfirePolicy.RUN_LATEST,
    misfire_grace_s=None, overlap_policy=OverlapPolicy.SKIP, max_attempts=3, backoff_s=10.0,
    backoff_max_s=600.0, timeout_ms=5000, memory_mb=128, priority=0, jitter_s=0,
    start_at=None, end_at=None, created_at=T0, deleted_at=None,
)  # fmt: skip


def rule(**changes: Any) -> RuleSnapshot:
    return replace(RULE, **changes)


def due_action(rule_changes: dict[str, Any] | None = None, **changes: Any) -> DueAction:
    """A rule's own occurrence due at T0, first attempt; `rule_id=None` makes a one-off."""
    is_one_off = changes.get("rule_id", "r_1") is None
    base = DueAction(
        id=1, tenant_id="t_1", rule_id="r_1", rule_version=1, key=None, runtime=None, code=None,
        params=None, timeout_ms=None, memory_mb=None, scheduled_at=T0, due_at=T0,
        status=ActionStatus.PENDING, attempt=0, max_attempts=3, version=0, priority=0,
        claimed_at=None, trace_parent=None,
        rule=None if is_one_off else rule(**(rule_changes or {})),
    )  # fmt: skip
    return replace(base, **changes)
