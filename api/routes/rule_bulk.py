"""`POST /v1/rules/bulk`: pause, resume or delete every rule the query selects, at once.

The query takes the same filter as `GET /v1/rules` (labels, state, runtime, last outcome,
search), so the list a user looked at is the set the operation changes; `dry_run` answers
that set's size without changing anything. The change is one transaction: all or nothing.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import EditorDep, EngineDep
from api.filters import RuleFilterDep
from api.schemas.bulk import BulkRequest, BulkResultPublic

router = APIRouter(prefix="/v1/rules", tags=["rules"])


@router.post("/bulk", response_model=BulkResultPublic)
async def bulk_change(
    body: BulkRequest, selection: RuleFilterDep, caller: EditorDep, engine: EngineDep
) -> Any:
    """Pause, resume or delete the rules the query selects (all of them without a filter)."""
    return await engine.bulk_change(
        caller.tenant_id, body.operation, selection, dry_run=body.dry_run
    )
