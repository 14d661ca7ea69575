"""A rule's history: its versions (full definitions) and the differences between two."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field

from cadenza_client.models.base import Record
from cadenza_client.models.rules import NewRule


class RuleDefinition(NewRule):
    """Every field of a rule as it was at one version."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    timezone: str


class RuleVersion(Record):
    """One saved version of a rule."""

    rule_id: str
    version: int
    created_at: datetime
    definition: RuleDefinition


class FieldChange(Record):
    """One field that differs between two versions."""

    field: str
    before: Any = Field(description="Its value in the older version.")
    after: Any = Field(description="Its value in the newer version.")


class RuleDiff(Record):
    """The fields that differ from `from_version` to `to_version`."""

    rule_id: str
    from_version: int
    to_version: int
    changes: tuple[FieldChange, ...]
