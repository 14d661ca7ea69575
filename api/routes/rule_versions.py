"""`/v1/rules/{rule_id}/versions` and `/rollback`: a rule's history, diffs, and going back.

Every save of a rule (create, edit, pause, resume, rollback) is a version with its full
definition. A rollback makes a new version equal to an old one; with `If-Match` it applies only
while no edit came after the version named (as PATCH), and it re-plans like an edit.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from api.deps import EditorDep, EngineDep, ViewerDep
from api.pagination import Page, PageDep, decode_cursor, page_of
from api.routes.rules import IfMatch, RuleId, expected_version, tagged
from api.schemas.rule_versions import (
    MAX_VERSION,
    RollbackRequest,
    RuleDiff,
    RuleVersionPublic,
)
from api.schemas.rules import RulePublic
from engine.service.rule_history import diff
from engine.store.rule_versions import RuleVersion

router = APIRouter(prefix="/v1/rules/{rule_id}", tags=["rules"])

VersionNumber = Annotated[
    int, Path(ge=1, le=MAX_VERSION, description="A version of the rule (its ETag's number).")
]


def public(found: RuleVersion) -> dict[str, Any]:
    return {
        "rule_id": found.rule_id,
        "version": found.version,
        "created_at": found.created_at,
        "definition": found.spec,
    }


@router.get("/versions", response_model=Page[RuleVersionPublic])
async def list_versions(
    rule_id: RuleId, caller: ViewerDep, engine: EngineDep, page: PageDep
) -> dict[str, Any]:
    """The rule's versions, oldest first, each with its full definition."""
    after = decode_cursor(page.cursor, int)
    found = await engine.rule_versions(caller.tenant_id, rule_id, after, page.limit + 1)
    return page_of([public(v) for v in found], page.limit, lambda v: v["version"])


@router.get("/versions/{version}", response_model=RuleVersionPublic)
async def get_version(
    rule_id: RuleId, version: VersionNumber, caller: ViewerDep, engine: EngineDep
) -> dict[str, Any]:
    """One version of the rule."""
    return public(await engine.rule_version(caller.tenant_id, rule_id, version))


@router.get("/versions/{version}/diff", response_model=RuleDiff)
async def diff_versions(
    rule_id: RuleId,
    version: VersionNumber,
    caller: ViewerDep,
    engine: EngineDep,
    against: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_VERSION,
            description="The version to compare with (default: the one before).",
        ),
    ] = None,
) -> dict[str, Any]:
    """The fields that differ between version `against` and `version`."""
    older = await engine.rule_version(caller.tenant_id, rule_id, against or max(version - 1, 1))
    newer = await engine.rule_version(caller.tenant_id, rule_id, version)
    changes = diff(older.spec, newer.spec)
    return {
        "rule_id": rule_id,
        "from_version": older.version,
        "to_version": newer.version,
        "changes": changes,
    }


@router.post("/rollback", response_model=RulePublic)
async def rollback_rule(
    rule_id: RuleId,
    body: RollbackRequest,
    caller: EditorDep,
    engine: EngineDep,
    response: Response,
    if_match: IfMatch = None,
) -> Any:
    """Make the rule what it was at `version` again, as a new version; pending actions of the
    current version are cancelled and the next occurrence is planned after now."""
    rule = await engine.rollback_rule(
        caller.tenant_id, rule_id, body.version, expected_version(if_match)
    )
    return tagged(response, rule)
