"""Bulk operations on the rules a filter selects: what to do in, what was done out."""

from __future__ import annotations

from pydantic import BaseModel, Field, StrictBool

from api.schemas.common import Input
from engine.service.bulk import MAX_IDS, BulkOperation


class BulkRequest(Input):
    operation: BulkOperation = Field(description="What to do to each selected rule.")
    dry_run: StrictBool = Field(
        False, description="Only count (and list) the rules it would change; change nothing."
    )

    model_config = {"json_schema_extra": {"examples": [{"operation": "pause", "dry_run": True}]}}


class BulkResultPublic(BaseModel):
    """The rules changed, or that a dry run would change (already paused rules are not
    paused again, so the same call twice changes nothing the second time)."""

    model_config = {"from_attributes": True}

    operation: BulkOperation
    dry_run: bool
    count: int = Field(description="How many rules it changed (or would change).")
    ids: list[str] = Field(description=f"Their ids in id order, the first {MAX_IDS}.")
