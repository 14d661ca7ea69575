"""`/v1/admin/tenants/{id}/capabilities`: the operator grants and revokes the capabilities a
tenant's scripts may call. Only a capability of the registry can be granted."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response

from api.deps import DbDep, OperatorDep
from api.routes.admin import TenantId
from api.routes.capabilities import registry
from api.schemas.capabilities import CapabilityGrantPublic
from tenants import capability_grants
from tenants.errors import NotFound

router = APIRouter(prefix="/v1/admin/tenants/{tenant_id}/capabilities", tags=["operator"])

Name = Annotated[str, Path(min_length=1, max_length=130, description="e.g. `crm.open_carts`.")]


@router.get("", response_model=list[CapabilityGrantPublic])
async def list_grants(
    tenant_id: TenantId, _: OperatorDep, db: DbDep, request: Request
) -> list[dict[str, Any]]:
    """The tenant's grants by name; `registered` is false for a name the registry lost."""
    async with db.connect() as conn:
        grants = await capability_grants.list_grants(conn, tenant_id)
    specs = registry(request).by_name
    return [asdict(g) | {"registered": g.name in specs} for g in grants]


@router.put("/{name}", response_model=CapabilityGrantPublic)
async def grant(
    tenant_id: TenantId, name: Name, _: OperatorDep, db: DbDep, request: Request
) -> dict[str, Any]:
    """Let the tenant's scripts call `name` (granting it again changes nothing)."""
    specs = registry(request).by_name
    if name not in specs:
        known = ", ".join(sorted(specs)) or "none: see CADENZA_CAPABILITIES_FILE"
        raise NotFound(f"no capability {name!r} in the operator's registry (registered: {known})")
    async with db.begin() as conn:
        granted = await capability_grants.grant(conn, tenant_id, name, datetime.now(UTC))
    return asdict(granted) | {"registered": True}


@router.delete("/{name}", status_code=204)
async def revoke(tenant_id: TenantId, name: Name, _: OperatorDep, db: DbDep) -> Response:
    """Take the grant back: the tenant's next calls of `name` are refused."""
    async with db.begin() as conn:
        await capability_grants.revoke(conn, tenant_id, name)
    return Response(status_code=204)
