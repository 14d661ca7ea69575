"""A rule's history: its versions (full definitions), the diff of two, a rollback request."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import Field

from api.schemas.common import Input, Public, public_copy
from api.schemas.rules import RuleCreate

MAX_VERSION = 1_000_000_000


if TYPE_CHECKING:

    class RuleDefinition(Public):
        """RuleCreate's fields (built at run time by `public_copy`)."""

else:
    RuleDefinition = public_copy(
        "RuleDefinition",
        "What a rule was at one version: every field a rule is made of.",
        RuleCreate,
        timezone=(str, ...),
    )


class RuleVersionPublic(Public):
    rule_id: str
    version: int = Field(description="The rule's version (its ETag) this definition had.")
    created_at: datetime = Field(description="When this version was saved.")
    definition: RuleDefinition


class FieldChangePublic(Public):
    field: str = Field(description="The rule's field, e.g. `schedule`.")
    before: Any = Field(description="Its value in `from_version`.")
    after: Any = Field(description="Its value in `to_version`.")


class RuleDiff(Public):
    rule_id: str
    from_version: int
    to_version: int
    changes: list[FieldChangePublic] = Field(description="Only the fields that differ.")


class RollbackRequest(Input):
    version: int = Field(
        strict=True, ge=1, le=MAX_VERSION, description="The version to make current again."
    )
