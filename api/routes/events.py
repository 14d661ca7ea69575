"""`GET /v1/events?after=`: the durable feed of what the tenant's scripts emitted."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import DbDep, ViewerDep
from api.pagination import (
    DEFAULT_LIMIT,
    MAX_CURSOR_CHARS,
    MAX_LIMIT,
    checked_cursor,
    decode_cursor,
    encode_cursor,
)
from api.schemas.events import EventFeed
from engine.store.outbox import list_events

router = APIRouter(prefix="/v1/events", tags=["events"])


@router.get("", response_model=EventFeed)
async def read_events(
    caller: ViewerDep,
    db: DbDep,
    after: Annotated[
        str | None,
        Query(max_length=MAX_CURSOR_CHARS, description="`next_cursor` of your last read."),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Events in the order they were emitted; poll with `after=next_cursor` to get only new ones."""
    after_id = decode_cursor(checked_cursor(after or None), int)
    async with db.connect() as conn:
        rows = await list_events(conn, caller.tenant_id, after_id, limit)
    last_id = rows[-1]["id"] if rows else after_id
    return {
        "items": [dict(r) for r in rows],
        "next_cursor": encode_cursor(last_id if last_id is not None else 0),
    }
