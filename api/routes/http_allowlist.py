"""`/v1/http-allowlist`: the origins the tenant's scripts may call with `ctx.http.request`,
within the operator's policy (`CADENZA_HTTP_SCHEMES`, `CADENZA_HTTP_ALLOW_PRIVATE`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import AdminDep, DbDep, SettingsDep, ViewerDep
from api.schemas.secrets import HttpAllowListPublic, HttpAllowListPut
from tenants import http_allowlist

router = APIRouter(prefix="/v1/http-allowlist", tags=["secrets"])


def _schemes(settings: Any) -> list[str]:
    return sorted(settings.http_schemes.split(","))


@router.get("", response_model=HttpAllowListPublic)
async def get_allowlist(caller: ViewerDep, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    """The tenant's allow-list (empty: scripts may call nothing)."""
    async with db.connect() as conn:
        entries = await http_allowlist.get(conn, caller.tenant_id)
    return {"entries": entries, "schemes": _schemes(settings)}


@router.put("", response_model=HttpAllowListPublic)
async def put_allowlist(
    body: HttpAllowListPut, caller: AdminDep, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    """Replace the allow-list; an entry the operator's policy forbids is refused (422) and
    nothing changes. A host on the list is still refused at call time when it resolves to a
    private address the operator does not allow."""
    schemes = _schemes(settings)
    async with db.begin() as conn:
        entries = await http_allowlist.put(conn, caller.tenant_id, body.entries, schemes)
    return {"entries": entries, "schemes": schemes}
