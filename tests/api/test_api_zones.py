"""Time zones: a bad zone and a bad schedule are one problem type (`invalid-schedule`, naming
the field) wherever a schedule is read; a tenant's default zone applies to what names none."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

CODE = "def main(ctx):\n    return 1\n"
RULE = {"name": "z", "schedule": "FREQ=DAILY;BYHOUR=9", "code": CODE}
BAD = {
    "timezone": {"timezone": "Mars/Olympus"},
    "schedule": {"schedule": "FREQ=DAILY;BYHOUR=25"},
    "never": {"schedule": "2001-01-01T09:00:00Z"},
}


def _calls(t: Any, rule_id: str, bad: dict[str, Any]) -> dict[str, Any]:
    path = f"/v1/rules/{rule_id}"
    return {
        "create": t.editor.post("/v1/rules", json={**RULE, **bad}),
        "validate": t.editor.post("/v1/rules/validate", json={**RULE, **bad}),
        "edit": t.editor.patch(path, json=bad),
        "preview change": t.editor.post(f"{path}/preview", json=bad),
        "preview": t.viewer.post("/v1/preview", json={"schedule": RULE["schedule"], **bad}),
    }


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_zone_or_schedule_is_invalid_schedule_everywhere(new_tenant, problem, kind) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    for call, answer in _calls(t, rule["id"], BAD[kind]).items():
        if kind == "never" and call in {"preview", "preview change"}:
            continue  # a past instant previews as an empty series; saving it is what fails
        body = problem(answer, 422, "invalid-schedule")
        field = "timezone" if kind == "timezone" else "schedule"
        assert [e["field"] for e in body["errors"]] == [field], (call, body)
    assert [r["id"] for r in t.viewer.get("/v1/rules").json()["items"]] == [rule["id"]]
    assert t.viewer.get(f"/v1/rules/{rule['id']}").json()["version"] == rule["version"]


def test_the_tenant_default_zone_applies_to_rules_and_previews_naming_none(
    new_tenant, problem
) -> None:
    t, neighbour = new_tenant(), new_tenant()
    before = t.editor.post("/v1/rules", json=RULE).json()
    problem(t.editor.patch("/v1/tenant", json={"default_timezone": "Asia/Tokyo"}), 403)
    problem(
        t.admin.patch("/v1/tenant", json={"default_timezone": "Nowhere/X"}), 422, "invalid-schedule"
    )
    set_ = t.admin.patch("/v1/tenant", json={"default_timezone": "Asia/Tokyo"})
    assert set_.status_code == 200 and set_.json()["default_timezone"] == "Asia/Tokyo"
    made = t.editor.post("/v1/rules", json=RULE).json()
    named = t.editor.post("/v1/rules", json={**RULE, "timezone": "Europe/Berlin"}).json()
    assert (before["timezone"], made["timezone"], named["timezone"]) == (
        "UTC",
        "Asia/Tokyo",
        "Europe/Berlin",
    )
    preview = t.viewer.post("/v1/preview", json={"schedule": RULE["schedule"], "count": 2})
    assert all(
        datetime.fromisoformat(at).utcoffset().total_seconds() == 9 * 3600
        for at in preview.json()["occurrences"]
    )
    back = t.editor.patch(f"/v1/rules/{named['id']}", json={"timezone": None}).json()
    assert back["timezone"] == "Asia/Tokyo"
    assert t.viewer.get("/v1/tenant").json()["default_timezone"] == "Asia/Tokyo"
    assert neighbour.viewer.get("/v1/tenant").json()["default_timezone"] == "UTC"
    theirs = neighbour.editor.post("/v1/rules", json=RULE).json()
    assert theirs["timezone"] == "UTC"
