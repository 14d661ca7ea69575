"""`PUT /v1/rules/{id}`: create or replace a rule by an id the client chose.

The host product keys its rules by its own objects ("the reminder of case 123"), so it can
upsert without remembering our ids. Ids beginning `r_` are the server's: a PUT may replace
such a rule but never creates one, so a guessed server id answers 404 whether or not another
tenant has it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Response

from api.deps import EditorDep, EngineDep
from api.routes.rules import IfMatch, expected_version, rule_spec, tagged
from api.schemas.rules import RuleCreate, RulePublic
from engine.errors import RuleNotFound

router = APIRouter(prefix="/v1/rules", tags=["rules"])

#: A letter or digit first, then letters, digits, `.`, `_`, `~`, `-`: safe in a URL unescaped.
CLIENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,39}$"
SERVER_PREFIX = "r_"

ClientRuleId = Annotated[
    str,
    Path(
        max_length=40,
        pattern=CLIENT_ID_PATTERN,
        description="Your id for the rule (1-40 of `A-Z a-z 0-9 . _ ~ -`, a letter or digit "
        "first); ids beginning `r_` are the server's and can only be replaced.",
        examples=["case-123-reminder"],
    ),
]


@router.put(
    "/{rule_id}",
    response_model=RulePublic,
    responses={201: {"model": RulePublic, "description": "Created"}},
)
async def put_rule(
    rule_id: ClientRuleId,
    body: RuleCreate,
    caller: EditorDep,
    engine: EngineDep,
    response: Response,
    if_match: IfMatch = None,
) -> Any:
    """Create the rule with this id (201), or replace it whole (200; fields left out take
    their defaults). The same body again changes nothing; with If-Match only a replace of
    that version is done (a rule that does not exist answers 404)."""
    must_exist = if_match is not None or rule_id.startswith(SERVER_PREFIX)
    try:
        rule, is_new = await engine.put_rule(
            caller.tenant_id,
            rule_id,
            rule_spec(body, caller),
            expected_version(if_match),
            must_exist=must_exist,
        )
    except RuleNotFound as exc:
        if rule_id.startswith(SERVER_PREFIX):
            raise RuleNotFound(
                f"no rule {rule_id!r} for this tenant: ids beginning r_ are made by the server "
                "(POST /v1/rules); choose an id of your own to create one"
            ) from exc
        raise
    if is_new:
        response.status_code = 201
        response.headers["Location"] = f"/v1/rules/{rule.id}"
    return tagged(response, rule)
