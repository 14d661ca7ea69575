"""`/v1/rules/{id}/pause|resume|trigger|backfill`: steering a rule's runs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from api.deps import EditorDep, EngineDep
from api.routes.rules import IfMatch, RuleId, expected_version, tagged
from api.schemas.actions import ActionList, ActionPublic
from api.schemas.rules import RulePublic, Window

router = APIRouter(prefix="/v1/rules/{rule_id}", tags=["rules"])


@router.post("/pause", response_model=RulePublic)
async def pause_rule(
    rule_id: RuleId,
    caller: EditorDep,
    engine: EngineDep,
    response: Response,
    if_match: IfMatch = None,
) -> Any:
    """Stop planning runs; occurrences while paused are recorded as `paused`. A new version."""
    expected = expected_version(if_match)
    return tagged(response, await engine.pause_rule(caller.tenant_id, rule_id, expected))


@router.post("/resume", response_model=RulePublic)
async def resume_rule(
    rule_id: RuleId,
    caller: EditorDep,
    engine: EngineDep,
    response: Response,
    if_match: IfMatch = None,
) -> Any:
    """Plan runs again from the next occurrence. A new version."""
    expected = expected_version(if_match)
    return tagged(response, await engine.resume_rule(caller.tenant_id, rule_id, expected))


@router.post("/trigger", response_model=ActionPublic, status_code=201)
async def trigger_rule(rule_id: RuleId, caller: EditorDep, engine: EngineDep) -> Any:
    """Run the rule now, once, outside its schedule."""
    return await engine.trigger_rule(caller.tenant_id, rule_id)


@router.post("/backfill", response_model=ActionList, status_code=201)
async def backfill_rule(
    rule_id: RuleId, body: Window, caller: EditorDep, engine: EngineDep
) -> dict[str, Any]:
    """Run the occurrences the schedule had in a past window [start, end)."""
    return {"items": await engine.backfill_rule(caller.tenant_id, rule_id, body.start, body.end)}
