"""`POST /v1/rules/test-run`: run a script once in the real sandbox, saving nothing.

What the rule editor's "Test run" calls: reads see the tenant's data, writes and events are
returned instead of applied, and no action or run is recorded.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import EditorDep, EngineDep
from api.schemas.test_run import TestRunCreate, TestRunPublic

router = APIRouter(prefix="/v1/rules", tags=["rules"])


@router.post("/test-run", response_model=TestRunPublic)
async def test_run(body: TestRunCreate, caller: EditorDep, engine: EngineDep) -> Any:
    """Run the script once as its rule would, and show its result, output, events and kv
    changes; a script that fails or does not compile is a 200 with its status."""
    trial = await engine.test_run(caller.tenant_id, **body.model_dump())
    return trial.outcome.to_json() | {"kv_changes": trial.kv_changes}
