"""The OpenAPI document: error answers filed under application/problem+json, security listed."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from api.problems import MEDIA_TYPE

DESCRIPTION = """\
Cadenza runs tenants' scripts on their schedules. Authenticate with
`Authorization: Bearer <API key>` (operator routes: the operator token). Errors are RFC 9457
`application/problem+json`; lists are cursor-paginated (`limit`, `cursor` -> `next_cursor`).
See docs/api.md for a walkthrough with curl.
"""


def _problem_content(document: dict[str, Any]) -> None:
    for path in document.get("paths", {}).values():
        for operation in path.values():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if status[:1] in "45" and "application/json" in content:
                    content[MEDIA_TYPE] = content.pop("application/json")


def install_openapi(app: FastAPI) -> None:
    """Build the document once, on first request, with problem+json error bodies."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=DESCRIPTION,
                routes=app.routes,
                tags=app.openapi_tags,
            )
            _problem_content(document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
