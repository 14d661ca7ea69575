"""`/v1/keys`: the tenant's API keys (admin role): list, create (secret shown once), revoke."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from api.deps import AdminDep, DbDep
from api.errors import BadCursor
from api.pagination import Page, PageDep, decode_cursor, page_of
from api.schemas.keys import KeyCreate, KeyCreated, KeyPublic
from tenants.keys import create_key, list_keys, revoke_key

router = APIRouter(prefix="/v1/keys", tags=["keys"])

KeyId = Annotated[str, Path(max_length=40, description="The key's id (`k_…`).")]


@router.get("", response_model=Page[KeyPublic])
async def list_api_keys(caller: AdminDep, db: DbDep, page: PageDep) -> dict[str, Any]:
    """Every key of your tenant, revoked ones included, oldest first."""
    after = decode_cursor(page.cursor)
    async with db.connect() as conn:
        keys = await list_keys(conn, caller.tenant_id)
    ids = [k.id for k in keys]
    if after is not None and after not in ids:
        raise BadCursor()
    start = ids.index(after) + 1 if after is not None else 0
    return page_of(keys[start : start + page.limit + 1], page.limit, lambda k: k.id)


@router.post("", response_model=KeyCreated, status_code=201)
async def create_api_key(body: KeyCreate, caller: AdminDep, db: DbDep) -> dict[str, Any]:
    """A new key for your tenant; its secret is in this response only."""
    async with db.begin() as conn:
        issued = await create_key(conn, caller.tenant_id, body.role, body.name)
    return {**issued.key.__dict__, "secret": issued.secret}


@router.delete(
    "/{key_id}",
    response_model=KeyPublic,
    responses={409: {"description": "The key was revoked already."}},
)
async def revoke_api_key(caller: AdminDep, db: DbDep, key_id: KeyId) -> Any:
    """Revoke a key of your tenant; requests with it get 401 from now on. A key revoked already
    answers 409 (`conflict`, naming when), and nothing changes."""
    async with db.begin() as conn:
        return await revoke_key(conn, key_id, tenant_id=caller.tenant_id)
