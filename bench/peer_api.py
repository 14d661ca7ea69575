"""The peer of the API-under-load figure: the query behind `GET /v1/rules` (a tenant's
visible rules, in id order, one page) served by a bare Starlette route on the same database,
with nothing around it: no authentication, quotas, validation, audit or engine. It is the
ceiling that issue 25 measures Cadenza's route against (Cadenza at 0.5x its req/s or more).

Run by the soak scenario as `uvicorn --factory bench.peer_api:from_environment`, with as
many worker processes as `serve` has API processes, while `serve`'s engine works.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from engine.store.tables import rules
from tenants.connect import open_database

#: The database the peer reads: the one `serve` runs on.
URL_VARIABLE = "BENCH_PEER_DB"


def from_environment() -> Starlette:
    """The app on the database `BENCH_PEER_DB` names."""
    url = os.environ[URL_VARIABLE]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.db = await open_database(url)
        yield
        await app.state.db.dispose()

    return Starlette(routes=[Route("/rules", list_rules)], lifespan=lifespan)


async def list_rules(request: Request) -> JSONResponse:
    """`?tenant_id=…&limit=…`: the page `GET /v1/rules` reads, as JSON."""
    tenant_id = request.query_params["tenant_id"]
    limit = int(request.query_params.get("limit", "50"))
    query = (
        select(rules)
        .where(rules.c.tenant_id == tenant_id, rules.c.deleted_at.is_(None))
        .order_by(rules.c.id)
        .limit(limit)
    )
    async with request.app.state.db.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
    return JSONResponse({"items": [{k: _plain(v) for k, v in row.items()} for row in rows]})


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value
