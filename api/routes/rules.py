"""`/v1/rules`: create, list, read, edit (with If-Match on the version), delete, validate.

A rule's `ETag` is its version, and every change makes a new version (an edit, a pause, a
resume). PATCH, DELETE, pause and resume with `If-Match` succeed only while no edit came after
that version (a pause or a resume may have: they change nothing an editor read), checked by
the statement that writes; otherwise 412 and nothing changes, so two editors never silently
overwrite each other. Without `If-Match` the change applies to whatever version is current.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Response

from api.deps import Caller, EditorDep, EngineDep, ViewerDep
from api.filters import RuleFilterDep
from api.pagination import Page, PageDep
from api.schemas.rules import RuleCreate, RulePublic, RuleUpdate, zoned
from engine.domain.records import Rule, RuleSpec

router = APIRouter(prefix="/v1/rules", tags=["rules"])

RuleId = Annotated[str, Path(max_length=40, description="The rule's id (`r_…`).")]
#: An ETag of ours (`"3"`, weak `W/"3"`, bare `3`) or `*`.
ETAG_PATTERN = r'^ *(\*|(W/)?"?[0-9]{1,9}"?) *$'
IfMatch = Annotated[
    str | None,
    Header(
        max_length=100,
        pattern=ETAG_PATTERN,
        description='The version you read, as its ETag (`"3"`), or `*` for any.',
    ),
]


def etag(rule: Rule) -> str:
    return f'"{rule.version}"'


def expected_version(if_match: str | None) -> int | None:
    """The version an If-Match names (None for none or `*`); ETAG_PATTERN checked its shape."""
    tag = (if_match or "*").strip().removeprefix("W/").strip('"')
    return None if tag == "*" else int(tag)


def tagged(response: Response, rule: Rule) -> Rule:
    """`rule`, with its version as the response's ETag."""
    response.headers["ETag"] = etag(rule)
    return rule


def rule_spec(body: RuleCreate, caller: Caller) -> RuleSpec:
    """The rule as the engine takes it, in the tenant's default zone when it names none."""
    return RuleSpec(**zoned(body.model_dump(), caller.tenant.default_timezone))


@router.get("", response_model=Page[RulePublic])
async def list_rules(
    caller: ViewerDep,
    engine: EngineDep,
    page: PageDep,
    selection: RuleFilterDep,
) -> Any:
    """Your rules, each with its next run time and schedule in English; every filter given
    must hold (labels, state, runtime, the latest run's outcome, text in the name)."""
    return await engine.list_rules(
        caller.tenant_id, cursor=page.cursor, limit=page.limit, selection=selection
    )


@router.post("", response_model=RulePublic, status_code=201)
async def create_rule(
    body: RuleCreate, caller: EditorDep, engine: EngineDep, response: Response
) -> Any:
    """Save a rule; its first occurrence is planned at once."""
    rule = await engine.create_rule(caller.tenant_id, rule_spec(body, caller))
    response.headers["Location"] = f"/v1/rules/{rule.id}"
    return tagged(response, rule)


@router.post("/validate")
async def validate_rule(body: RuleCreate, caller: EditorDep, engine: EngineDep) -> dict[str, bool]:
    """Check schedule, script and quotas as a save would, without saving anything."""
    await engine.validate_rule(caller.tenant_id, rule_spec(body, caller))
    return {"valid": True}


@router.get("/{rule_id}", response_model=RulePublic)
async def get_rule(
    rule_id: RuleId, caller: ViewerDep, engine: EngineDep, response: Response
) -> Any:
    """One rule; its `ETag` header is its version."""
    return tagged(response, await engine.get_rule(caller.tenant_id, rule_id))


@router.patch("/{rule_id}", response_model=RulePublic)
async def update_rule(
    rule_id: RuleId,
    body: RuleUpdate,
    caller: EditorDep,
    engine: EngineDep,
    response: Response,
    if_match: IfMatch = None,
) -> Any:
    """Change the fields given; pending actions of the old version are cancelled, never run."""
    changes = zoned(body.model_dump(exclude_unset=True), caller.tenant.default_timezone)
    rule = await engine.update_rule(
        caller.tenant_id, rule_id, changes, expected_version=expected_version(if_match)
    )
    return tagged(response, rule)


@router.delete("/{rule_id}", status_code=204)
async def delete_rule(
    rule_id: RuleId, caller: EditorDep, engine: EngineDep, if_match: IfMatch = None
) -> Response:
    """Delete a rule; its pending actions are cancelled, its past runs stay readable."""
    await engine.delete_rule(caller.tenant_id, rule_id, expected_version(if_match))
    return Response(status_code=204)
