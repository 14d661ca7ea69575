"""`/v1/kv`: the tenant's key-value data, the same items its scripts read and write."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from api.deps import DbDep, EditorDep, ViewerDep
from api.pagination import Page, PageDep, decode_cursor, page_of
from api.schemas.data import ItemPublic, ItemPut
from tenants.errors import NotFound
from tenants.kv import MAX_KEY_CHARS, check_key, delete_value, get_item, list_items, put_value

router = APIRouter(prefix="/v1/kv", tags=["data"])

Key = Annotated[
    str, Path(min_length=1, max_length=MAX_KEY_CHARS, description="The item's key; may hold `/`.")
]


def _missing(key: str) -> NotFound:
    return NotFound(f"no data item {key!r} for this tenant: GET /v1/kv lists them")


@router.get("", response_model=Page[ItemPublic])
async def list_data(
    caller: ViewerDep,
    db: DbDep,
    page: PageDep,
    prefix: Annotated[str, Query(max_length=MAX_KEY_CHARS, description="Keys starting so.")] = "",
) -> dict[str, Any]:
    """Items in key order, optionally only those whose key starts with `prefix`."""
    after = decode_cursor(page.cursor)
    async with db.connect() as conn:
        items = await list_items(
            conn, caller.tenant_id, prefix=prefix, after=after, limit=page.limit + 1
        )
    return page_of(items, page.limit, lambda item: item.key)


@router.get("/{key:path}", response_model=ItemPublic)
async def get_data(key: Key, caller: ViewerDep, db: DbDep) -> Any:
    """One item."""
    async with db.connect() as conn:
        item = await get_item(conn, caller.tenant_id, check_key(key))
    if item is None:
        raise _missing(key)
    return item


@router.put("/{key:path}", response_model=ItemPublic)
async def put_data(key: Key, body: ItemPut, caller: EditorDep, db: DbDep) -> Any:
    """Create or replace an item."""
    async with db.begin() as conn:
        await put_value(conn, caller.tenant_id, check_key(key), body.value)
        return await get_item(conn, caller.tenant_id, key)


@router.delete("/{key:path}", status_code=204)
async def delete_data(key: Key, caller: EditorDep, db: DbDep) -> Response:
    """Remove an item; 404 when there was none."""
    async with db.begin() as conn:
        if not await delete_value(conn, caller.tenant_id, check_key(key)):
            raise _missing(key)
    return Response(status_code=204)
