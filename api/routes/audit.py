"""`GET /v1/audit` (tenant admins) and `GET /v1/admin/tenants/{tenant_id}/audit` (operator).

Read-only on purpose: no route updates or deletes a row of the log. Rows are written by
`api.audit_hook`, in the transaction of the change they record.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from api.deps import AdminDep, DbDep, OperatorDep
from api.pagination import Page, PageDep, decode_cursor, page_of
from api.schemas.audit import AuditEntryPublic
from api.schemas.common import Instant
from tenants.audit_log import AuditFilter, list_entries
from tenants.registry import get_tenant

router = APIRouter(tags=["audit"])

KIND_PATTERN = r"^[a-z][a-z-]{0,31}$"
ACTOR_PATTERN = r"^(operator|k_[0-9a-z]{1,37})$"


async def audit_filter(
    object_kind: Annotated[
        str | None, Query(max_length=32, pattern=KIND_PATTERN, description="e.g. `rule`.")
    ] = None,
    object_id: Annotated[str | None, Query(max_length=300, description="e.g. `r_…`.")] = None,
    actor: Annotated[
        str | None,
        Query(max_length=40, pattern=ACTOR_PATTERN, description="A key id (`k_…`) or `operator`."),
    ] = None,
    since: Annotated[Instant | None, Query(description="Changes at or after this instant.")] = None,
    until: Annotated[Instant | None, Query(description="Changes before this instant.")] = None,
) -> AuditFilter:
    return AuditFilter(object_kind, object_id, actor, since, until)


FilterDep = Annotated[AuditFilter, Depends(audit_filter)]


async def _page(db: DbDep, tenant_id: str, wanted: AuditFilter, page: PageDep) -> dict[str, Any]:
    async with db.connect() as conn:
        found = await list_entries(
            conn, tenant_id, wanted, decode_cursor(page.cursor, int), page.limit + 1
        )
    return page_of(found, page.limit, lambda entry: entry.id)


@router.get("/v1/audit", response_model=Page[AuditEntryPublic])
async def read_audit(
    caller: AdminDep, db: DbDep, page: PageDep, wanted: FilterDep
) -> dict[str, Any]:
    """Your tenant's changes, oldest first (admin keys only)."""
    return await _page(db, caller.tenant_id, wanted, page)


@router.get("/v1/admin/tenants/{tenant_id}/audit", response_model=Page[AuditEntryPublic])
async def read_tenant_audit(
    tenant_id: Annotated[str, Path(max_length=40, description="The tenant's id (`t_…`).")],
    _: OperatorDep,
    db: DbDep,
    page: PageDep,
    wanted: FilterDep,
) -> dict[str, Any]:
    """A tenant's changes, oldest first (operator token)."""
    async with db.connect() as conn:
        await get_tenant(conn, tenant_id)
    return await _page(db, tenant_id, wanted, page)
