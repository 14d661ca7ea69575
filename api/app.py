"""The FastAPI application factory: routes, error mapping and the process's shared state."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from api.settings import Settings
from engine.store import schema


def create_app(settings: Settings, db: AsyncEngine) -> FastAPI:
    """An app serving `db`; the caller owns the engine's lifetime."""
    app = FastAPI(title="Cadenza", version="0.1.0")
    app.state.settings = settings
    app.state.db = db

    @app.get("/healthz", tags=["operations"])
    async def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["operations"])
    async def readyz() -> JSONResponse:
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

    return app
