"""A change never lacks its audit row: when the row cannot be written, the change rolls back.

The database itself refuses audit rows about one data key (a trigger, installed behind the
server's back on SQLite and PostgreSQL); writing that key then fails and leaves nothing,
while every other change keeps working and keeps its row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from support.audit import audit_rows
from support.processes import Server

from tenants.db import create_engine

SQLITE_TRIGGER = """
CREATE TRIGGER refuse_doomed_audit BEFORE INSERT ON audit_log
WHEN NEW.object_id = 'doomed' BEGIN SELECT RAISE(ABORT, 'audit row refused'); END
"""
PG_FUNCTION = """
CREATE OR REPLACE FUNCTION refuse_doomed_audit() RETURNS trigger AS $$
BEGIN
  IF NEW.object_id = 'doomed' THEN RAISE EXCEPTION 'audit row refused'; END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql
"""
PG_TRIGGER = """
CREATE TRIGGER refuse_doomed_audit BEFORE INSERT ON audit_log
FOR EACH ROW EXECUTE FUNCTION refuse_doomed_audit()
"""


async def _run(url: str, *statements: str) -> None:
    db = create_engine(url)
    try:
        async with db.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await db.dispose()


@pytest.fixture
def audit_refusing_doomed(server: Server) -> Iterator[None]:
    url = server.database_url
    installed = (SQLITE_TRIGGER,) if "sqlite" in url else (PG_FUNCTION, PG_TRIGGER)
    asyncio.run(_run(url, *installed))
    yield
    asyncio.run(
        _run(url, "DROP TRIGGER refuse_doomed_audit" + ("" if "sqlite" in url else " ON audit_log"))
    )


def test_a_change_whose_row_cannot_be_written_does_not_happen(new_tenant, audit_refusing_doomed):
    tenant = new_tenant()
    before = audit_rows(tenant.admin)

    refused = tenant.editor.put("/v1/kv/doomed", json={"value": "lost"})
    kept = tenant.editor.put("/v1/kv/kept", json={"value": "here"})

    assert refused.status_code >= 500 and kept.status_code == 200, (refused.text, kept.text)
    assert tenant.viewer.get("/v1/kv/doomed").status_code == 404
    rows = audit_rows(tenant.admin)[len(before) :]
    assert [(r["object_kind"], r["object_id"]) for r in rows] == [("data", "kept")]
