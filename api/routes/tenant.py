"""`GET /v1/tenant`: the caller's tenant, its quotas and today's usage."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from api.deps import DbDep, ViewerDep
from api.schemas.tenants import TenantSelf
from tenants.registry import usage_on

router = APIRouter(prefix="/v1/tenant", tags=["tenant"])


@router.get("", response_model=TenantSelf)
async def get_own_tenant(caller: ViewerDep, db: DbDep) -> dict[str, Any]:
    """Who you are: your tenant, its quotas, what it used today (UTC) and your key's role."""
    today = datetime.now(UTC).date()
    async with db.connect() as conn:
        used = await usage_on(conn, caller.tenant_id, today)
    return {
        **asdict(caller.tenant),
        "usage_today": {"day": today.isoformat(), **used},
        "role": caller.key.role,
    }
