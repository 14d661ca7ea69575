"""`/v1/actions`, `/v1/runs`, `/v1/events`: the queue, what ran, and what scripts emitted."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cadenza_client.call import Call, QueryValues, Route, given, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.enums import ActionStatus, Outcome, Runtime
from cadenza_client.models.runs import Action, EventFeed, Run, RunSummary
from cadenza_client.resources.rules import RuleRef, rule_id

ActionRef = Action | int
RunRef = RunSummary | int


def _id(ref: Action | RunSummary | int) -> int:
    return ref if isinstance(ref, int) else ref.id


def _rule_filter(rule: RuleRef | None) -> str | None:
    return None if rule is None else rule_id(rule)


class Actions(Resource[S]):
    """One-off actions and the occurrences of rules, as queue items."""

    @operation("POST", "/v1/actions")
    def submit(
        route: Route,
        run_at: datetime,
        *,
        code: str | None = None,
        rule: RuleRef | None = None,
        key: str | None = None,
        runtime: Runtime | None = None,
        params: dict[str, Any] | None = None,
        expires_at: datetime | None = None,
        priority: int | None = None,
    ) -> Call[Action]:
        """Plan one run at `run_at`: of `code`, or of `rule`'s script.

        With a `key` the submission is idempotent: submitting again with the same key updates
        the same pending action (so it is also retried after a broken connection). Not started
        by `expires_at`, it is expired instead of run late; `priority` (-1000..1000) orders it
        among actions due at once.
        """
        body = given(
            run_at=run_at,
            key=key,
            rule_id=_rule_filter(rule),
            code=code,
            runtime=runtime,
            params=params,
            expires_at=expires_at,
            priority=priority,
        )
        return route.call(reading(Action), body=body, is_idempotent=key is not None)

    @operation("GET", "/v1/actions")
    def page(
        route: Route,
        *,
        status: ActionStatus | None = None,
        rule: RuleRef | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[Action]]:
        """One page of actions, newest first, optionally of one status or one rule."""
        query = {"status": status, "rule_id": _rule_filter(rule), "limit": limit, "cursor": cursor}
        return route.call(reading(Page[Action]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/actions/{action_id}")
    def get(route: Route, action: ActionRef) -> Call[Action]:
        """One action as it stands now."""
        return route.call(reading(Action), path={"action_id": _id(action)})

    @operation("POST", "/v1/actions/{action_id}/cancel")
    def cancel(route: Route, action: ActionRef) -> Call[Action]:
        """Withdraw an action that has not started (`InvalidState` once its run started)."""
        return route.call(reading(Action), path={"action_id": _id(action)})

    @operation("POST", "/v1/actions/{action_id}/retry")
    def retry(route: Route, action: ActionRef) -> Call[Action]:
        """Run a failed, expired, skipped or cancelled action again, now, as a new action."""
        return route.call(reading(Action), path={"action_id": _id(action)})


class Runs(Resource[S]):
    """Attempts at actions: outcome, timing, output."""

    @operation("GET", "/v1/runs")
    def page(
        route: Route,
        *,
        rule: RuleRef | None = None,
        outcome: Outcome | None = None,
        since: datetime | None = None,
        rule_labels: tuple[str, ...] = (),
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[RunSummary]]:
        """One page of runs, newest first, optionally of one rule, of rules carrying labels
        (`key=value` or `key`), of one outcome, or since an instant."""
        query: dict[str, QueryValues] = {
            "rule_id": _rule_filter(rule),
            "rule_label": rule_labels,
            "status": outcome,
            "since": since,
            "limit": limit,
            "cursor": cursor,
        }
        return route.call(reading(Page[RunSummary]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/runs/{run_id}")
    def get(route: Route, run: RunRef) -> Call[Run]:
        """One run with its result, error, output and resources."""
        return route.call(reading(Run), path={"run_id": _id(run)})


class Events(Resource[S]):
    """The durable feed of what the tenant's scripts emitted, oldest first."""

    @operation("GET", "/v1/events")
    def read(
        route: Route, *, after: str | None = None, limit: int | None = None
    ) -> Call[EventFeed]:
        """Events after the cursor `after` (from the start without); `next_cursor` reads on."""
        query = {"after": after, "limit": limit}
        return route.call(reading(EventFeed), query=query, paged_by="after")

    list = listing(read)
