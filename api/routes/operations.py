"""`/healthz`, `/readyz`, `/metrics`: for load balancers, orchestrators and Prometheus.

`/healthz` answers while the process runs (liveness: restarting it would not help when the
database is down); `/readyz` only while the database answers, its schema is current and, under
`cadenza serve`, the engine process answers (readiness: send no traffic here meanwhile).
`/metrics` is the operator's: it takes the operator token, and `--metrics-address` serves it
on a separate listener without one. Under `serve` it relays the engine process's exposition,
which holds every process's counters (`api.serving.engine_link`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from sqlalchemy import text

from api.deps import DbDep, OperatorDep
from api.schemas.problems import problem_docs
from engine.store import schema
from tenants.errors import DatabaseUnavailable
from tenants.faults import RETRY_AFTER_S, as_unavailable

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Not ready; `detail` says why."}})
async def readyz(db: DbDep, request: Request) -> JSONResponse:
    """The database answers, its schema is the one this code expects, and the engine process
    (when the engine runs in one) answers."""
    try:
        async with db.connect() as conn:
            await conn.execute(text("SELECT 1"))
        current = await schema.is_current(db)
    except Exception as exc:  # readiness reports any failure instead of raising it
        unavailable = as_unavailable(exc) or DatabaseUnavailable(type(exc).__name__)
        return _not_ready(str(unavailable))
    if not current:
        return _not_ready("schema not migrated: run `cadenza db upgrade`")
    link = request.app.state.engine_link
    if link is not None and (problem := await link.problem()) is not None:
        return _not_ready(problem)
    return JSONResponse({"status": "ready"})


def _not_ready(detail: str) -> JSONResponse:
    headers = {"Retry-After": str(RETRY_AFTER_S)}
    return JSONResponse({"status": "unavailable", "detail": detail[:200]}, 503, headers)


@router.get("/metrics", response_class=Response, responses=problem_docs(401, 429, 503))
async def metrics(_: OperatorDep, request: Request) -> Response:
    """Prometheus text format (operator token): this process's registry, or the engine
    process's exposition under `cadenza serve` (503 while the engine does not answer)."""
    link = request.app.state.engine_link
    body = generate_latest(REGISTRY) if link is None else await link.exposition()
    return Response(body, media_type=CONTENT_TYPE_LATEST)
