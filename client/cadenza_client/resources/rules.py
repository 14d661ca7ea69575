"""`/v1/rules` and `/v1/preview`: rules, their versions, steering, and why they ran or not.

Writes that must not overwrite someone else's change take the rule as read before (`Rule`):
its `version` goes out as `If-Match`, and a rule edited meanwhile raises `StaleVersion` (a pause
or a resume in between does not). An id (`str`) instead changes whatever version is current,
unless `version=` names one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from cadenza_client.call import Call, QueryValues, Route, given, no_content, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.enums import (
    BulkOperation,
    DstGap,
    DstRepeat,
    Outcome,
    RuleState,
    Runtime,
)
from cadenza_client.models.rules import (
    BulkResult,
    ChangePreview,
    NewRule,
    Preview,
    Rule,
    RuleChanges,
    RuleStats,
    Timeline,
)
from cadenza_client.models.runs import Action, ActionList, TestRun

RuleRef = Rule | str
"""A rule as read before, or its id."""


def rule_id(rule: RuleRef) -> str:
    return rule.id if isinstance(rule, Rule) else rule


def if_match(rule: RuleRef, version: int | None) -> dict[str, str]:
    """The precondition of a write: `version` if given, else the version `rule` was read at."""
    expected = version if version is not None else getattr(rule, "version", None)
    return {} if expected is None else {"If-Match": f'"{expected}"'}


def selection(
    labels: tuple[str, ...],
    state: RuleState | None,
    runtime: Runtime | None,
    last_outcome: Outcome | None,
    search: str | None,
) -> dict[str, QueryValues]:
    """The query that selects rules, shared by the list and the bulk operations."""
    return {
        "label": labels,
        "state": state,
        "runtime": runtime,
        "last_outcome": last_outcome,
        "search": search,
    }


class Schedules(Resource[S]):
    """What a schedule does, before any rule uses it."""

    @operation("POST", "/v1/preview")
    def preview(
        route: Route,
        schedule: str,
        *,
        timezone: str | None = None,
        after: datetime | None = None,
        count: int | None = None,
        dst_gap: DstGap | None = None,
        dst_repeat: DstRepeat | None = None,
        calendars: Sequence[str] | None = None,
    ) -> Call[Preview]:
        """Its text in English, next `count` occurrences after `after`, end and warnings;
        with `calendars` (names) the dates they exclude are skipped, and listed as such."""
        body = given(
            schedule=schedule,
            timezone=timezone,
            after=after,
            count=count,
            dst_gap=dst_gap,
            dst_repeat=dst_repeat,
            calendars=None if calendars is None else list(calendars),
        )
        return route.call(reading(Preview), body=body, is_idempotent=True)


class Rules(Resource[S]):
    """A tenant's rules: a schedule, a script and policies each."""

    @operation("GET", "/v1/rules")
    def page(
        route: Route,
        *,
        labels: tuple[str, ...] = (),
        state: RuleState | None = None,
        runtime: Runtime | None = None,
        last_outcome: Outcome | None = None,
        enabled: bool | None = None,
        search: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[Rule]]:
        """One page of rules (`limit` 1-200) that meet every filter given: `labels` as
        `key=value` or `key`, state, runtime, the latest run's outcome, text in the name."""
        query = selection(labels, state, runtime, last_outcome, search) | {
            "enabled": enabled,
            "limit": limit,
            "cursor": cursor,
        }
        return route.call(reading(Page[Rule]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("POST", "/v1/rules")
    def create(route: Route, rule: NewRule) -> Call[Rule]:
        """Save a rule; its first occurrence is planned at once."""
        return route.call(reading(Rule), body=rule.body())

    @operation("PUT", "/v1/rules/{rule_id}")
    def put(route: Route, rule_id: str, rule: NewRule, *, version: int | None = None) -> Call[Rule]:
        """Create the rule with your own id, or replace it whole; the same rule again changes
        nothing. With `version`, only a replace of that version (`StaleVersion` otherwise)."""
        headers = {} if version is None else {"If-Match": f'"{version}"'}
        return route.call(
            reading(Rule), path={"rule_id": rule_id}, body=rule.body(), headers=headers
        )

    @operation("POST", "/v1/rules/bulk")
    def bulk(
        route: Route,
        operation: BulkOperation,
        *,
        dry_run: bool = False,
        labels: tuple[str, ...] = (),
        state: RuleState | None = None,
        runtime: Runtime | None = None,
        last_outcome: Outcome | None = None,
        search: str | None = None,
    ) -> Call[BulkResult]:
        """Pause, resume or delete every rule the filters select (as `page` takes them), in
        one transaction; `dry_run` counts them and changes nothing. Only `dry_run` repeats."""
        return route.call(
            reading(BulkResult),
            query=selection(labels, state, runtime, last_outcome, search),
            body=given(operation=operation, dry_run=dry_run),
            is_idempotent=dry_run,
        )

    @operation("POST", "/v1/rules/validate")
    def validate(route: Route, rule: NewRule) -> Call[None]:
        """Check a rule as a save would (schedule, script, quotas); raises what a save would."""
        return route.call(no_content, body=rule.body(), is_idempotent=True)

    @operation("POST", "/v1/rules/test-run")
    def test_run(
        route: Route,
        code: str,
        *,
        runtime: Runtime | None = None,
        params: dict[str, Any] | None = None,
        timeout_ms: int | None = None,
        memory_mb: int | None = None,
    ) -> Call[TestRun]:
        """Run a script once in the real sandbox against the tenant's data; saves nothing."""
        body = given(
            code=code, runtime=runtime, params=params, timeout_ms=timeout_ms, memory_mb=memory_mb
        )
        return route.call(reading(TestRun), body=body, is_idempotent=True)

    @operation("GET", "/v1/rules/{rule_id}")
    def get(route: Route, rule: RuleRef) -> Call[Rule]:
        """One rule, with the `version` that update and delete send back."""
        return route.call(reading(Rule), path={"rule_id": rule_id(rule)})

    @operation("PATCH", "/v1/rules/{rule_id}")
    def update(
        route: Route, rule: RuleRef, changes: RuleChanges, *, version: int | None = None
    ) -> Call[Rule]:
        """Change the fields `changes` gives; answers the rule at its new version.

        Raises `StaleVersion` when an edit came after the version it was read at (or
        `version`; a pause or a resume does not count): nothing changed then.
        """
        return route.call(
            reading(Rule),
            path={"rule_id": rule_id(rule)},
            body=changes.body(),
            headers=if_match(rule, version),
        )

    @operation("DELETE", "/v1/rules/{rule_id}")
    def delete(route: Route, rule: RuleRef, *, version: int | None = None) -> Call[None]:
        """Delete a rule (its pending actions are cancelled, its runs stay readable).

        Raises `StaleVersion` when it was edited since it was read (or since `version`).
        """
        return route.call(
            no_content, path={"rule_id": rule_id(rule)}, headers=if_match(rule, version)
        )

    @operation("POST", "/v1/rules/{rule_id}/pause")
    def pause(route: Route, rule: RuleRef) -> Call[Rule]:
        """Stop planning runs; occurrences while paused are recorded as `paused`."""
        return route.call(reading(Rule), path={"rule_id": rule_id(rule)})

    @operation("POST", "/v1/rules/{rule_id}/resume")
    def resume(route: Route, rule: RuleRef) -> Call[Rule]:
        """Plan runs again from the next occurrence."""
        return route.call(reading(Rule), path={"rule_id": rule_id(rule)})

    @operation("POST", "/v1/rules/{rule_id}/trigger")
    def trigger(route: Route, rule: RuleRef) -> Call[Action]:
        """Run the rule now, once, outside its schedule; answers the new action."""
        return route.call(reading(Action), path={"rule_id": rule_id(rule)})

    @operation("POST", "/v1/rules/{rule_id}/backfill")
    def backfill(route: Route, rule: RuleRef, start: datetime, end: datetime) -> Call[ActionList]:
        """Run the occurrences the schedule had in the past window [start, end)."""
        body = given(start=start, end=end)
        return route.call(reading(ActionList), path={"rule_id": rule_id(rule)}, body=body)

    @operation("GET", "/v1/rules/{rule_id}/timeline")
    def timeline(
        route: Route, rule: RuleRef, *, start: datetime | None = None, end: datetime | None = None
    ) -> Call[Timeline]:
        """Every planned occurrence in [start, end) with its fate (default: the last 7 days)."""
        query = {"from": start, "to": end}
        return route.call(reading(Timeline), path={"rule_id": rule_id(rule)}, query=query)

    @operation("GET", "/v1/rules/{rule_id}/stats")
    def stats(route: Route, rule: RuleRef) -> Call[RuleStats]:
        """Configured vs achieved cadence, lateness, headroom against limits, skips."""
        return route.call(reading(RuleStats), path={"rule_id": rule_id(rule)})

    @operation("POST", "/v1/rules/{rule_id}/preview")
    def preview_change(
        route: Route, rule: RuleRef, changes: RuleChanges, *, count: int | None = None
    ) -> Call[ChangePreview]:
        """The next occurrences before and after `changes`, and what happens to pending runs."""
        return route.call(
            reading(ChangePreview),
            path={"rule_id": rule_id(rule)},
            query={"count": count},
            body=changes.body(),
            is_idempotent=True,
        )
