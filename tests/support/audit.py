"""Reading the audit log in API tests: every row a client may read, across pages."""

from __future__ import annotations

from typing import Any

import httpx

RULE = {"name": "audited", "schedule": "FREQ=DAILY;BYHOUR=9", "code": "def main(ctx):\n    pass\n"}


def audit_rows(client: httpx.Client, **filters: Any) -> list[dict[str, Any]]:
    """Every row of `GET /v1/audit` matching `filters`, following the cursor in small pages."""
    rows: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 3, **filters}
    while True:
        page = client.get("/v1/audit", params=params)
        assert page.status_code == 200, page.text
        rows += page.json()["items"]
        if page.json()["next_cursor"] is None:
            return rows
        params["cursor"] = page.json()["next_cursor"]
