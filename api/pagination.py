"""Cursor pagination shared by every list: `?limit=&cursor=` in, `{items, next_cursor}` out.

Our own cursors are opaque base64url JSON of the last item's sort key. A cursor only says
where to continue: every list still filters by the caller's tenant, so a forged cursor can
never reach another tenant's objects. Lists of the engine hand out the engine's cursors,
passed through unchanged.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel, Field

from api.errors import BadCursor

T = TypeVar("T")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_CURSOR_CHARS = 500


class Page(BaseModel, Generic[T]):
    """One page of a list; pass `next_cursor` as `cursor` for the next (null: this is the last)."""

    items: list[T]
    next_cursor: str | None = Field(None, description="Cursor of the next page; null at the end.")


class PageParams(BaseModel):
    limit: int
    cursor: str | None


async def page_params(
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Items per page.")] = DEFAULT_LIMIT,
    cursor: Annotated[
        str | None,
        Query(max_length=MAX_CURSOR_CHARS, description="`next_cursor` of the previous page."),
    ] = None,
) -> PageParams:
    return PageParams(limit=limit, cursor=checked_cursor(cursor or None))


PageDep = Annotated[PageParams, Depends(page_params)]


def checked_cursor(cursor: str | None) -> str | None:
    """`cursor` if it is what every list of ours hands out: base64url of printable UTF-8 text.

    Checked before any list sees it, so forged bytes (NUL, binary) never reach a query.
    """
    if cursor is None:
        return None
    if not _BASE64URL.fullmatch(cursor):
        raise BadCursor()
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise BadCursor() from exc
    if not text or not text.isprintable():
        raise BadCursor()
    return cursor


def encode_cursor(position: Any) -> str:
    raw = json.dumps({"after": position}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, kind: type = str) -> Any:
    """The position a cursor of `encode_cursor` carries (of type `kind`), or None for no cursor."""
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        position = json.loads(raw)["after"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise BadCursor() from exc
    if type(position) is not kind or (isinstance(position, str) and "\x00" in position):
        raise BadCursor()
    return position


def page_of(items: list[Any], limit: int, key: Callable[[Any], Any]) -> dict[str, Any]:
    """A page from up to `limit + 1` fetched items: the extra one only proves there is more."""
    shown = items[:limit]
    more = len(items) > limit
    return {"items": shown, "next_cursor": encode_cursor(key(shown[-1])) if more else None}
