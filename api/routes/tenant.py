"""`/v1/tenant`: the caller's tenant, its quotas and today's usage; its admin's settings."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from api.deps import AdminDep, Caller, DbDep, ViewerDep
from api.schemas.tenants import TenantSelf, TenantSettings
from tenants.registry import update_tenant, usage_on

router = APIRouter(prefix="/v1/tenant", tags=["tenant"])


@router.get("", response_model=TenantSelf)
async def get_own_tenant(caller: ViewerDep, db: DbDep) -> dict[str, Any]:
    """Who you are: your tenant, its quotas, what it used today (UTC) and your key's role."""
    return await _own(caller, db)


@router.patch("", response_model=TenantSelf)
async def set_own_tenant(body: TenantSettings, caller: AdminDep, db: DbDep) -> dict[str, Any]:
    """Change your tenant's settings (its default time zone); quotas are the operator's."""
    async with db.begin() as conn:
        tenant = await update_tenant(conn, caller.tenant_id, **body.model_dump(exclude_none=True))
    return await _own(Caller(key=caller.key, tenant=tenant), db)


async def _own(caller: Caller, db: DbDep) -> dict[str, Any]:
    today = datetime.now(UTC).date()
    async with db.connect() as conn:
        used = await usage_on(conn, caller.tenant_id, today)
    return {
        **asdict(caller.tenant),
        "usage_today": {"day": today.isoformat(), **used},
        "role": caller.key.role,
    }
