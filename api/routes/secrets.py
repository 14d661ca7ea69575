"""`/v1/secrets`: the tenant's named secrets for its scripts (`ctx.secrets.get(name)`).

Write-only: a value goes in with PUT and never comes out of the API again; the list shows
names and when each was set. Only admins change them; anyone of the tenant sees the names.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Response

from api.deps import AdminDep, DbDep, SecretBoxDep, ViewerDep
from api.schemas.secrets import SecretPublic, SecretPut
from tenants import tenant_secrets
from tenants.errors import NotFound

router = APIRouter(prefix="/v1/secrets", tags=["secrets"])

Name = Annotated[
    str, Path(min_length=1, max_length=64, description="Letters, digits, '_', '.', '-'.")
]


@router.get("", response_model=list[SecretPublic])
async def list_secrets(caller: ViewerDep, db: DbDep) -> Any:
    """The tenant's secrets by name (at most 100), with when each was set; never a value."""
    async with db.connect() as conn:
        return await tenant_secrets.names(conn, caller.tenant_id)


@router.put("/{name}", response_model=SecretPublic)
async def put_secret(
    name: Name, body: SecretPut, caller: AdminDep, db: DbDep, box: SecretBoxDep
) -> Any:
    """Set or replace a secret; the answer names it and never holds the value."""
    async with db.begin() as conn:
        return await tenant_secrets.put(
            conn, box, caller.tenant_id, name, body.value, datetime.now(UTC)
        )


@router.delete("/{name}", status_code=204)
async def delete_secret(name: Name, caller: AdminDep, db: DbDep) -> Response:
    """Delete a secret; 404 when there was none. Scripts asking for it get None from then."""
    async with db.begin() as conn:
        if not await tenant_secrets.remove(conn, caller.tenant_id, tenant_secrets.check_name(name)):
            raise NotFound(f"no secret {name!r} for this tenant: GET /v1/secrets lists them")
    return Response(status_code=204)
