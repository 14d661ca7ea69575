"""The query parameters that select rules (`GET /v1/rules`, the bulk operations) and runs by
their rules' labels: one dependency each, so a listing and a bulk call with the same query
string mean the same rules."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from pydantic import StringConstraints

from api.errors import BadParameter
from engine.domain.labels import MAX_SELECTORS, SELECTOR_PATTERN, LabelRequirement, parse_selector
from engine.domain.rule_filters import RuleFilter, RuleState
from sandbox import OutcomeStatus, RuntimeName

_SELECTOR = (
    f"A label the rule carries, `key=value` or `key` (any value); repeat it (at most "
    f"{MAX_SELECTORS} times) to require all of them."
)

Selector = Annotated[str, StringConstraints(pattern=SELECTOR_PATTERN, max_length=127)]
LabelQuery = Annotated[list[Selector], Query(max_length=MAX_SELECTORS, description=_SELECTOR)]


async def rule_filter(
    label: LabelQuery = [],  # noqa: B006 - FastAPI copies a list default per request
    state: Annotated[RuleState | None, Query(description="Active or paused rules.")] = None,
    enabled: Annotated[
        bool | None, Query(description="Only enabled (true) or paused (false) rules.")
    ] = None,
    runtime: Annotated[RuntimeName | None, Query(description="The rule's runtime.")] = None,
    last_outcome: Annotated[
        OutcomeStatus | None, Query(description="The outcome of the rule's latest run.")
    ] = None,
    search: Annotated[str | None, Query(max_length=200, description="Text in the name.")] = None,
) -> RuleFilter:
    """The rules the query names; `enabled` is the older spelling of `state`."""
    if enabled is not None:
        implied = RuleState.ACTIVE if enabled else RuleState.PAUSED
        if state not in (None, implied):
            raise BadParameter(
                f"enabled={str(enabled).lower()} contradicts state={state}: send only state",
                field="enabled",
            )
        state = implied
    return RuleFilter(
        labels=parse_selector(label),
        state=state,
        runtime=None if runtime is None else str(runtime),
        last_outcome=None if last_outcome is None else str(last_outcome),
        search=search,
    )


async def rule_labels(
    rule_label: Annotated[
        list[Selector],
        Query(
            max_length=MAX_SELECTORS,
            description="Only runs of rules carrying this label now. " + _SELECTOR,
        ),
    ] = [],  # noqa: B006 - FastAPI copies a list default per request
) -> tuple[LabelRequirement, ...]:
    return parse_selector(rule_label)


RuleFilterDep = Annotated[RuleFilter, Depends(rule_filter)]
RuleLabelsDep = Annotated[tuple[LabelRequirement, ...], Depends(rule_labels)]
