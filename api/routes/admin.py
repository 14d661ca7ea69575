"""`/v1/admin/tenants`: the operator creates, changes, suspends, resumes and deletes tenants.

Every route here needs the operator token (`CADENZA_ADMIN_TOKEN`); tenant API keys are refused.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Path, Response

from api.deps import DbDep, OperatorDep
from api.pagination import Page, PageDep, decode_cursor, page_of
from api.schemas.tenants import (
    QuotasUpdate,
    TenantCreate,
    TenantCreated,
    TenantPublic,
    TenantUpdate,
)
from tenants.registry import (
    TenantStatus,
    create_tenant,
    delete_tenant,
    get_tenant,
    list_tenants,
    set_status,
    update_tenant,
)

router = APIRouter(prefix="/v1/admin/tenants", tags=["operator"])

TenantId = Annotated[str, Path(max_length=40, description="The tenant's id (`t_…`).")]


def _quotas(update: QuotasUpdate | None) -> dict[str, Any]:
    return {} if update is None else update.model_dump(exclude_none=True)


@router.get("", response_model=Page[TenantPublic])
async def list_all_tenants(_: OperatorDep, db: DbDep, page: PageDep) -> dict[str, Any]:
    """Every tenant, by id."""
    after = decode_cursor(page.cursor)
    async with db.connect() as conn:
        found = await list_tenants(conn, after_id=after, limit=page.limit + 1)
    return page_of(found, page.limit, lambda t: t.id)


@router.post("", response_model=TenantCreated, status_code=201)
async def create_new_tenant(body: TenantCreate, _: OperatorDep, db: DbDep) -> dict[str, Any]:
    """A new tenant and its first API key (shown once)."""
    async with db.begin() as conn:
        created, issued = await create_tenant(conn, body.name, body.role)
        if quotas := _quotas(body.quotas):
            created = await update_tenant(conn, created.id, quotas=quotas)
    return {**asdict(created), "api_key": issued.secret}


@router.get("/{tenant_id}", response_model=TenantPublic)
async def get_one_tenant(tenant_id: TenantId, _: OperatorDep, db: DbDep) -> Any:
    async with db.connect() as conn:
        return await get_tenant(conn, tenant_id)


@router.patch("/{tenant_id}", response_model=TenantPublic)
async def change_tenant(tenant_id: TenantId, body: TenantUpdate, _: OperatorDep, db: DbDep) -> Any:
    """Rename a tenant or change some of its quotas."""
    async with db.begin() as conn:
        return await update_tenant(conn, tenant_id, name=body.name, quotas=_quotas(body.quotas))


@router.delete("/{tenant_id}", status_code=204)
async def remove_tenant(tenant_id: TenantId, _: OperatorDep, db: DbDep) -> Response:
    """Delete a tenant with everything it owns. There is no undo."""
    async with db.begin() as conn:
        await delete_tenant(conn, tenant_id)
    return Response(status_code=204)


@router.post("/{tenant_id}/suspend", response_model=TenantPublic)
async def suspend_tenant(tenant_id: TenantId, _: OperatorDep, db: DbDep) -> Any:
    """Stop the tenant's rules; pending actions wait, nothing is lost. Its keys become read-only."""
    async with db.begin() as conn:
        return await set_status(conn, tenant_id, TenantStatus.SUSPENDED)


@router.post("/{tenant_id}/resume", response_model=TenantPublic)
async def resume_tenant(tenant_id: TenantId, _: OperatorDep, db: DbDep) -> Any:
    """Let the tenant's rules run again."""
    async with db.begin() as conn:
        return await set_status(conn, tenant_id, TenantStatus.ACTIVE)
