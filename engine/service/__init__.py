"""`EngineService`: the one facade the API and the command line use.

Every write validates, commits in one transaction and wakes the tenant's loop: in this process
when it runs the node, else through `on_change` (how `cadenza serve` reaches its engine process);
every read is scoped by tenant. `start()` runs this node's loops (dispatcher, tenant loops,
sweeper, delivery, retention, tenant leases); `stop()` ends them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from engine.clock import Clock, SystemClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.domain.changes import Change, Wake
from engine.domain.labels import LabelRequirement
from engine.domain.notifications import NotificationRoute, RouteSpec
from engine.domain.records import (
    Action,
    Page,
    Rule,
    RuleSpec,
    Run,
    SkipReason,
    SubmittedAction,
    TimelineEntry,
)
from engine.domain.rule_filters import RuleFilter, RunFilter
from engine.loop.supervisor import Supervisor
from engine.runs import trial
from engine.runs.trial import TrialResult
from engine.service import (
    action_writes,
    bulk,
    calendar_reads,
    calendar_writes,
    insights,
    notification_routes,
    one_offs,
    reads,
    rule_deletes,
    rule_history,
    rule_puts,
    rule_writes,
)
from engine.service.bulk import BulkOperation, BulkResult
from engine.service.calendar_reads import CalendarRecord
from engine.service.calendar_writes import CalendarInput
from engine.store.rule_versions import RuleVersion
from sandbox import Sandbox
from tenants.secret_box import SecretBox


class EngineService:
    """Rules, actions and runs of every tenant, and the loops that run them on this node."""

    def __init__(
        self,
        db: AsyncEngine,
        sandbox: Sandbox,
        config: EngineConfig,
        clock: Clock | None = None,
        secrets: SecretBox | None = None,
        on_change: Wake | None = None,
    ) -> None:
        self._deps = Deps(db, sandbox, config, clock or SystemClock(), self.wake, secrets)
        self._node: Supervisor | None = None
        self._on_change = on_change

    @property
    def node(self) -> Supervisor | None:
        """This process's running loops (None until `start`)."""
        return self._node

    def wake(self, tenant_id: str, change: Change) -> None:
        """A tenant's rules or actions changed: this node looks again now, or, when this
        process runs no node, `on_change` tells the one that does."""
        if self._node is not None:
            self._node.wake(tenant_id, change)
        elif self._on_change is not None:
            self._on_change(tenant_id, change)

    @property
    def node_name(self) -> str:
        """This node's name (chosen when it starts, unless configured)."""
        return self._deps.config.node_name

    async def start(self) -> None:
        if self._node is None:
            self._node = await Supervisor.started(self._deps)

    async def stop(self, grace_s: float = 0.0) -> None:
        """Stop this node's loops: give back what it claimed and has not started, let what
        runs finish for up to `grace_s`, interrupt the rest (see `engine.loop.stopping`)."""
        if self._node is not None:
            node, self._node = self._node, None
            await node.stop(grace_s)

    def hurry(self) -> None:
        """End a stop's grace period now (a second signal)."""
        if self._node is not None:
            self._node.hurry.set()

    # writes

    async def create_rule(self, tenant_id: str, spec: RuleSpec) -> Rule:
        return await rule_writes.create(self._deps, tenant_id, spec)

    async def put_rule(
        self,
        tenant_id: str,
        rule_id: str,
        spec: RuleSpec,
        expected_version: int | None = None,
        *,
        must_exist: bool = False,
    ) -> tuple[Rule, bool]:
        """Create or replace rule `rule_id` (the client's id); the rule and whether it is new."""
        is_new = await rule_puts.put(
            self._deps, tenant_id, rule_id, spec, expected_version, must_exist=must_exist
        )
        return await self.get_rule(tenant_id, rule_id), is_new

    async def update_rule(
        self,
        tenant_id: str,
        rule_id: str,
        changes: Mapping[str, Any],
        expected_version: int | None = None,
    ) -> Rule:
        await rule_writes.change(self._deps, tenant_id, rule_id, dict(changes), expected_version)
        return await self.get_rule(tenant_id, rule_id)

    async def rule_versions(
        self, tenant_id: str, rule_id: str, after: int | None = None, limit: int = 50
    ) -> list[RuleVersion]:
        return await rule_history.versions(self._deps, tenant_id, rule_id, after, limit)

    async def rule_version(self, tenant_id: str, rule_id: str, number: int) -> RuleVersion:
        return await rule_history.version(self._deps, tenant_id, rule_id, number)

    async def rollback_rule(
        self, tenant_id: str, rule_id: str, number: int, expected_version: int | None = None
    ) -> Rule:
        """A new version equal to version `number`, re-planned like an edit."""
        await rule_history.rollback(self._deps, tenant_id, rule_id, number, expected_version)
        return await self.get_rule(tenant_id, rule_id)

    async def delete_rule(
        self, tenant_id: str, rule_id: str, expected_version: int | None = None
    ) -> None:
        await rule_deletes.delete(self._deps, tenant_id, rule_id, expected_version)

    async def pause_rule(
        self, tenant_id: str, rule_id: str, expected_version: int | None = None
    ) -> Rule:
        changes = {"enabled": False}
        await rule_writes.change(
            self._deps, tenant_id, rule_id, changes, expected_version, SkipReason.PAUSED
        )
        return await self.get_rule(tenant_id, rule_id)

    async def resume_rule(
        self, tenant_id: str, rule_id: str, expected_version: int | None = None
    ) -> Rule:
        return await self.update_rule(tenant_id, rule_id, {"enabled": True}, expected_version)

    async def trigger_rule(self, tenant_id: str, rule_id: str) -> Action:
        action_id = await action_writes.trigger(self._deps, tenant_id, rule_id)
        return await self.get_action(tenant_id, action_id)

    async def backfill_rule(
        self, tenant_id: str, rule_id: str, start: datetime, end: datetime
    ) -> list[Action]:
        ids = await action_writes.backfill(self._deps, tenant_id, rule_id, start, end)
        return [await self.get_action(tenant_id, action_id) for action_id in ids]

    async def submit_action(
        self,
        tenant_id: str,
        *,
        run_at: datetime,
        key: str | None = None,
        rule_id: str | None = None,
        code: str | None = None,
        runtime: str | None = None,
        params: dict[str, Any] | None = None,
        expires_at: datetime | None = None,
        priority: int | None = None,
    ) -> SubmittedAction:
        submitted = await one_offs.submit(
            self._deps,
            tenant_id,
            run_at=run_at,
            key=key,
            rule_id=rule_id,
            code=code,
            runtime=runtime,
            params=params,
            expires_at=expires_at,
            priority=priority,
        )
        action = await self.get_action(tenant_id, submitted.action_id)
        return SubmittedAction(action, submitted.is_new)

    async def cancel_action(self, tenant_id: str, action_id: int) -> Action:
        await action_writes.cancel(self._deps, tenant_id, action_id)
        return await self.get_action(tenant_id, action_id)

    async def retry_action(self, tenant_id: str, action_id: int) -> Action:
        new_id = await action_writes.retry(self._deps, tenant_id, action_id)
        return await self.get_action(tenant_id, new_id)

    async def put_calendar(
        self, tenant_id: str, given: CalendarInput
    ) -> tuple[CalendarRecord, bool]:
        return await calendar_writes.put_calendar(self._deps, tenant_id, given)

    async def delete_calendar(self, tenant_id: str, name: str) -> None:
        await calendar_writes.delete_calendar(self._deps, tenant_id, name)

    async def get_calendar(self, tenant_id: str, name: str) -> CalendarRecord:
        return await calendar_reads.get_calendar(self._deps, tenant_id, name)

    async def list_calendars(
        self, tenant_id: str, cursor: str | None, limit: int
    ) -> Page[CalendarRecord]:
        return await calendar_reads.list_calendars(self._deps, tenant_id, cursor, limit)

    async def create_notification_route(self, tenant_id: str, spec: RouteSpec) -> NotificationRoute:
        return await notification_routes.create_route(self._deps, tenant_id, spec)

    async def get_notification_route(self, tenant_id: str, route_id: int) -> NotificationRoute:
        return await notification_routes.get_route(self._deps, tenant_id, route_id)

    async def list_notification_routes(
        self, tenant_id: str, rule_id: str | None, cursor: str | None, limit: int
    ) -> Page[NotificationRoute]:
        return await notification_routes.list_routes(self._deps, tenant_id, rule_id, cursor, limit)

    async def delete_notification_route(self, tenant_id: str, route_id: int) -> None:
        await notification_routes.delete_route(self._deps, tenant_id, route_id)

    async def validate_rule(self, tenant_id: str, spec: RuleSpec) -> None:
        profile = await self._deps.profile(tenant_id)
        now = self._deps.clock.now()
        await rule_writes.validate(self._deps, spec, now, profile, now=now)

    # reads

    async def get_rule(self, tenant_id: str, rule_id: str) -> Rule:
        return await reads.get_rule(self._deps, tenant_id, rule_id)

    async def list_rules(
        self,
        tenant_id: str,
        *,
        cursor: str | None = None,
        limit: int = 50,
        selection: RuleFilter | None = None,
    ) -> Page[Rule]:
        """One page of the rules `selection` means (None: all of them)."""
        return await reads.list_rules(
            self._deps, tenant_id, cursor, limit, selection or RuleFilter()
        )

    async def bulk_change(
        self, tenant_id: str, operation: BulkOperation, selection: RuleFilter, *, dry_run: bool
    ) -> BulkResult:
        """Pause, resume or delete every rule `selection` means, in one transaction."""
        return await bulk.apply(self._deps, tenant_id, operation, selection, dry_run=dry_run)

    async def get_action(self, tenant_id: str, action_id: int) -> Action:
        return await reads.get_action(self._deps, tenant_id, action_id)

    async def list_actions(
        self,
        tenant_id: str,
        *,
        status: str | None = None,
        rule_id: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Page[Action]:
        return await reads.list_actions(self._deps, tenant_id, status, rule_id, cursor, limit)

    async def get_run(self, tenant_id: str, run_id: int) -> Run:
        return await reads.get_run(self._deps, tenant_id, run_id)

    async def list_runs(
        self,
        tenant_id: str,
        *,
        rule_id: str | None = None,
        outcome: str | None = None,
        since: datetime | None = None,
        cursor: str | None = None,
        limit: int = 50,
        rule_labels: tuple[LabelRequirement, ...] = (),
    ) -> Page[Run]:
        """Runs newest first; `rule_labels`: only runs of rules that carry those labels now."""
        where = RunFilter(rule_id, outcome, since, rule_labels)
        return await reads.list_runs(self._deps, tenant_id, where, cursor, limit)

    async def timeline(
        self, tenant_id: str, rule_id: str, start: datetime, end: datetime
    ) -> list[TimelineEntry]:
        return await insights.timeline(self._deps, tenant_id, rule_id, start, end)

    async def rule_stats(self, tenant_id: str, rule_id: str) -> dict[str, Any]:
        return await insights.rule_stats(self._deps, tenant_id, rule_id)

    async def preview_change(
        self, tenant_id: str, rule_id: str, changes: Mapping[str, Any], count: int = 10
    ) -> dict[str, Any]:
        return await insights.preview_change(self._deps, tenant_id, rule_id, changes, count)

    async def test_run(
        self,
        tenant_id: str,
        *,
        code: str,
        runtime: str,
        params: dict[str, Any],
        timeout_ms: int,
        memory_mb: int,
    ) -> TrialResult:
        """Run a script once against the tenant's data, saving nothing (see `engine.runs.trial`)."""
        return await trial.test_run(
            self._deps,
            tenant_id,
            code=code,
            runtime=runtime,
            params=params,
            timeout_ms=timeout_ms,
            memory_mb=memory_mb,
        )
