"""`/v1/capabilities`: the capabilities of the embedding product the tenant's scripts may call
with `ctx.call(name, args)`, with the schema their arguments must match."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from api.deps import DbDep, ViewerDep
from api.schemas.capabilities import CapabilityPublic
from engine.capabilities.specs import CapabilityPolicy
from tenants import capability_grants

router = APIRouter(prefix="/v1/capabilities", tags=["capabilities"])


def registry(request: Request) -> CapabilityPolicy:
    """The operator's registry, read when the process started."""
    policy: CapabilityPolicy = request.app.state.capabilities
    return policy


@router.get("", response_model=list[CapabilityPublic])
async def list_capabilities(caller: ViewerDep, db: DbDep, request: Request) -> list[dict[str, Any]]:
    """The capabilities granted to the tenant that the operator's registry has, by name."""
    async with db.connect() as conn:
        granted = await capability_grants.granted_names(conn, caller.tenant_id)
    specs = registry(request).by_name
    return [
        {
            "name": name,
            "description": specs[name].description,
            "args_schema": specs[name].schema,
            "max_answer_bytes": specs[name].max_answer_bytes,
        }
        for name in sorted(granted & specs.keys())
    ]
