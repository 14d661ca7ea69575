"""`/healthz`, `/readyz`, `/metrics`: for load balancers, orchestrators and Prometheus."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from sqlalchemy import text

from api.deps import DbDep
from engine.store import schema

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Not ready; `detail` says why."}})
async def readyz(db: DbDep) -> JSONResponse:
    """The database answers and its schema is the one this code expects."""
    try:
        async with db.connect() as conn:
            await conn.execute(text("SELECT 1"))
        current = await schema.is_current(db)
    except Exception as exc:  # readiness reports any failure instead of raising it
        return JSONResponse({"status": "unavailable", "detail": str(exc)[:200]}, 503)
    if not current:
        return JSONResponse({"status": "unavailable", "detail": "schema not migrated"}, 503)
    return JSONResponse({"status": "ready"})


@router.get("/metrics", response_class=Response)
async def metrics() -> Response:
    """Prometheus text format: everything registered in the default registry."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
