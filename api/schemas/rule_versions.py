"""A rule's history: its versions (full definitions), the diff of two, a rollback request."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Input, Public
from api.schemas.rules import RuleCreate

MAX_VERSION = 1_000_000_000


class RuleDefinition(RuleCreate):
    """What a rule was at one version: every field a rule is made of."""

    model_config = {"extra": "ignore", "from_attributes": True}

    timezone: str


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
