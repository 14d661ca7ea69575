"""Serving the admin UI: the files of `ui/` at `/ui/`, and `/` redirecting there.

The files are served from disk as they are (no CDN, no build step at run time). When the
directory is missing (an installation without the UI), `/ui/` answers 404 like any unknown path.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.staticfiles import StaticFiles

#: `ui/` next to the packages in a checkout or editable install.
UI_DIR = Path(__file__).resolve().parent.parent / "ui"


def mount_ui(app: FastAPI, directory: Path = UI_DIR) -> None:
    """Serve `directory` at /ui/ (index.html for /ui/) and redirect / to it."""

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=307)

    if directory.is_dir():
        app.mount("/ui", StaticFiles(directory=directory, html=True), name="ui")
