"""`/v1/actions`: one-off actions (idempotent by key), the queue by status, cancel and retry."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from api.deps import EditorDep, EngineDep, ViewerDep
from api.pagination import Page, PageDep
from api.schemas.actions import ActionCreate, ActionPublic
from engine.domain.records import ActionStatus

router = APIRouter(prefix="/v1/actions", tags=["actions"])

#: Ids are 64-bit in the database; anything larger is simply not an action.
MAX_ID = 2**63 - 1
ActionId = Annotated[int, Path(ge=1, le=MAX_ID, description="The action's id.")]


@router.post(
    "",
    response_model=ActionPublic,
    status_code=201,
    responses={200: {"model": ActionPublic, "description": "Its key named an action already."}},
)
async def submit_action(
    body: ActionCreate, caller: EditorDep, engine: EngineDep, response: Response
) -> Any:
    """Plan a one-off run (201); a second submission with the same `key` updates the pending
    one and answers 200, so a retried submit never plans two."""
    submitted = await engine.submit_action(caller.tenant_id, **body.model_dump())
    if not submitted.is_new:
        response.status_code = 200
    return submitted.action


@router.get("", response_model=Page[ActionPublic])
async def list_actions(
    caller: ViewerDep,
    engine: EngineDep,
    page: PageDep,
    status: Annotated[ActionStatus | None, Query()] = None,
    rule_id: Annotated[str | None, Query(max_length=40)] = None,
) -> Any:
    """Actions, newest first, optionally of one status or one rule."""
    return await engine.list_actions(
        caller.tenant_id, status=status, rule_id=rule_id, cursor=page.cursor, limit=page.limit
    )


@router.get("/{action_id}", response_model=ActionPublic)
async def get_action(action_id: ActionId, caller: ViewerDep, engine: EngineDep) -> Any:
    return await engine.get_action(caller.tenant_id, action_id)


@router.post("/{action_id}/cancel", response_model=ActionPublic)
async def cancel_action(action_id: ActionId, caller: EditorDep, engine: EngineDep) -> Any:
    """Withdraw a pending action (409 once it has finished)."""
    return await engine.cancel_action(caller.tenant_id, action_id)


@router.post("/{action_id}/retry", response_model=ActionPublic)
async def retry_action(action_id: ActionId, caller: EditorDep, engine: EngineDep) -> Any:
    """Run a failed, expired, skipped or cancelled action again, now, as a new action."""
    return await engine.retry_action(caller.tenant_id, action_id)
