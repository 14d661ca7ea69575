"""Rules made over HTTP for the label, filter and bulk tests: a daily rule with given fields."""

from __future__ import annotations

from typing import Any

import httpx

OK_SCRIPT = "def main(ctx):\n    return 1\n"
DAILY = {"schedule": "FREQ=DAILY;BYHOUR=9", "code": OK_SCRIPT}


def make_rule(client: httpx.Client, name: str, **fields: object) -> dict[str, Any]:
    """Create the rule (daily at 9, a script that returns 1, unless `fields` say otherwise)."""
    answer = client.post("/v1/rules", json=DAILY | {"name": name} | fields)
    assert answer.status_code == 201, answer.text
    return answer.json()
