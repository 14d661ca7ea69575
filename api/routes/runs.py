"""`/v1/runs`: what happened on each attempt; one run with its output, result and error."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from api.deps import EngineDep, ViewerDep
from api.filters import RuleLabelsDep
from api.pagination import Page, PageDep
from api.routes.actions import MAX_ID
from api.schemas.common import Instant
from api.schemas.runs import RunPublic, RunSummary
from sandbox import OutcomeStatus

router = APIRouter(prefix="/v1/runs", tags=["runs"])

RunId = Annotated[int, Path(ge=1, le=MAX_ID, description="The run's id.")]


@router.get("", response_model=Page[RunSummary])
async def list_runs(
    caller: ViewerDep,
    engine: EngineDep,
    page: PageDep,
    rule_id: Annotated[str | None, Query(max_length=40)] = None,
    status: Annotated[OutcomeStatus | None, Query(description="The run's outcome.")] = None,
    since: Annotated[Instant | None, Query(description="Runs started at or after.")] = None,
    rule_labels: RuleLabelsDep = (),
) -> Any:
    """Runs, newest first; every filter given must hold."""
    return await engine.list_runs(
        caller.tenant_id,
        rule_id=rule_id,
        outcome=status,
        since=since,
        cursor=page.cursor,
        limit=page.limit,
        rule_labels=rule_labels,
    )


@router.get("/{run_id}", response_model=RunPublic)
async def get_run(run_id: RunId, caller: ViewerDep, engine: EngineDep) -> Any:
    """One run with its output, result and error."""
    return await engine.get_run(caller.tenant_id, run_id)
