"""INSERT … ON CONFLICT DO UPDATE, spelled for whichever database the connection speaks to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection


async def upsert(
    conn: AsyncConnection,
    table: Table,
    rows: Sequence[dict[str, Any]],
    conflict_columns: Sequence[str],
    update_columns: Sequence[str],
) -> None:
    """Insert `rows`; where one collides on `conflict_columns`, overwrite `update_columns`."""
    if not rows:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table)
    statement = statement.on_conflict_do_update(
        index_elements=list(conflict_columns),
        set_={c: statement.excluded[c] for c in update_columns},
    )
    await conn.execute(statement, list(rows))
