"""Rules and actions over HTTP: ETag/If-Match versions, validation, timeline, change preview."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

SCRIPT = "def main(ctx):\n    ctx.emit('reminder', {'n': 1})\n"
RULE = {
    "name": "stand-up",
    "schedule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9",
    "timezone": "Europe/Berlin",
    "code": SCRIPT,
}
FUTURE = "2099-01-01T09:00:00+00:00"


def test_create_shows_next_run_text_and_etag(new_tenant) -> None:
    t = new_tenant()
    created = t.editor.post("/v1/rules", json=RULE)
    assert created.status_code == 201, created.text
    rule = created.json()
    assert created.headers["ETag"] == f'"{rule["version"]}"'
    assert created.headers["Location"] == f"/v1/rules/{rule['id']}"
    assert rule["next_run_at"] and rule["schedule_text"]
    assert rule["timezone"] == "Europe/Berlin" and rule["misfire_policy"] == "run_latest"
    fetched = t.viewer.get(f"/v1/rules/{rule['id']}")
    assert fetched.headers["ETag"] == created.headers["ETag"]
    assert [r["id"] for r in t.viewer.get("/v1/rules").json()["items"]] == [rule["id"]]


def test_listed_schedule_text_follows_edits_of_schedule_and_zone(new_tenant) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()

    def listed_text() -> str:
        return str(t.viewer.get("/v1/rules").json()["items"][0]["schedule_text"])

    assert listed_text() == rule["schedule_text"] == "every weekday at 9:00 (Europe/Berlin)"
    changes = ({"schedule": "every 15m"}, {"timezone": "Asia/Tokyo"})
    for change in changes:
        edited = t.editor.patch(f"/v1/rules/{rule['id']}", json=change)
        assert edited.status_code == 200, edited.text
        assert listed_text() == edited.json()["schedule_text"] != rule["schedule_text"]
        rule = edited.json()


def test_stale_if_match_is_412_and_changes_nothing(new_tenant, problem) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    etag = f'"{rule["version"]}"'
    first = t.editor.patch(
        f"/v1/rules/{rule['id']}", json={"name": "one"}, headers={"If-Match": etag}
    )
    assert first.status_code == 200 and first.json()["version"] > rule["version"]
    assert first.headers["ETag"] == f'"{first.json()["version"]}"'
    stale = t.editor.patch(
        f"/v1/rules/{rule['id']}", json={"name": "two"}, headers={"If-Match": etag}
    )
    body = problem(stale, 412, "stale-version")
    assert body["current_version"] == first.json()["version"]
    problem(t.editor.delete(f"/v1/rules/{rule['id']}", headers={"If-Match": etag}), 412)
    for garbage in ("garbage", '"3a"', '"1", "2"', '"1234567890"'):
        refused = t.editor.patch(
            f"/v1/rules/{rule['id']}", json={"name": "x"}, headers={"If-Match": garbage}
        )
        body = problem(refused, 422, "validation")
        assert body["errors"][0]["field"] == "if-match" and body["errors"][0]["in"] == "header"
    assert t.viewer.get(f"/v1/rules/{rule['id']}").json()["name"] == "one"
    current = first.headers["ETag"]
    assert (
        t.editor.delete(f"/v1/rules/{rule['id']}", headers={"If-Match": current}).status_code == 204
    )
    problem(t.viewer.get(f"/v1/rules/{rule['id']}"), 404)


def test_patch_refuses_null_for_required_fields(new_tenant, problem) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    body = problem(t.editor.patch(f"/v1/rules/{rule['id']}", json={"name": None}), 422)
    assert body["errors"][0]["field"] == "name"


def test_invalid_rule_names_field_and_position(new_tenant, problem) -> None:
    t = new_tenant()
    bad_schedule = {**RULE, "schedule": "FREQ=WEEKLY;BYDAY=XX"}
    for path in ("/v1/rules", "/v1/rules/validate"):
        body = problem(t.editor.post(path, json=bad_schedule), 422)
        assert body["errors"][0]["field"] == "schedule"
        assert isinstance(body["errors"][0].get("position"), int)
    bad_code = {**RULE, "code": "def main(ctx):\n    return (\n"}
    body = problem(t.editor.post("/v1/rules/validate", json=bad_code), 422, "invalid-rule")
    assert body["errors"][0]["field"] == "code" and body["errors"][0]["line"] >= 1
    assert t.editor.post("/v1/rules/validate", json=RULE).json() == {"valid": True}
    assert t.viewer.get("/v1/rules").json()["items"] == []


def test_rule_quota_is_enforced(new_tenant, problem) -> None:
    t = new_tenant(quotas={"max_rules": 1, "max_timeout_ms": 1000})
    assert t.editor.post("/v1/rules", json={**RULE, "timeout_ms": 500}).status_code == 201
    second = {**RULE, "timeout_ms": 500}
    body = problem(t.editor.post("/v1/rules", json=second), 422, "quota-exceeded")
    assert body["quota"] == "max_rules"
    slow = {**RULE, "timeout_ms": 5000}
    assert problem(t.editor.post("/v1/rules/validate", json=slow), 422)["quota"] == "max_timeout_ms"


def test_pause_resume_and_change_preview(new_tenant) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    paused = t.editor.post(f"/v1/rules/{rule['id']}/pause").json()
    assert paused["enabled"] is False and paused["next_run_at"] is None
    resumed = t.editor.post(f"/v1/rules/{rule['id']}/resume").json()
    assert resumed["enabled"] is True and resumed["next_run_at"]
    change = {"schedule": "FREQ=DAILY;BYHOUR=18"}
    preview = t.viewer.post(f"/v1/rules/{rule['id']}/preview", json=change, params={"count": 3})
    assert preview.status_code == 200, preview.text
    data = preview.json()
    assert len(data["before"]) == 3 and len(data["after"]) == 3
    berlin = ZoneInfo("Europe/Berlin")
    assert {datetime.fromisoformat(at).astimezone(berlin).hour for at in data["after"]} == {18}
    assert data["pending"].startswith("1 pending action(s) of version ")
    assert "will be cancelled; the next run will be at " + data["after"][0] in data["pending"]
    pause = t.viewer.post(f"/v1/rules/{rule['id']}/preview", json={"enabled": False}).json()
    assert pause["after"] == []
    assert pause["pending"].endswith("will be skipped (paused); no new run will be planned")
    assert t.viewer.get(f"/v1/rules/{rule['id']}").json()["schedule"] == RULE["schedule"]


def test_timeline_and_stats(new_tenant, problem) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    window = {"from": "2030-01-07T00:00:00Z", "to": "2030-01-09T00:00:00Z"}
    timeline = t.viewer.get(f"/v1/rules/{rule['id']}/timeline", params=window)
    assert timeline.status_code == 200, timeline.text
    items = timeline.json()["items"]
    assert [i["scheduled_at"][:10] for i in items] == ["2030-01-07", "2030-01-08"]
    assert {i["fate"] for i in items} <= {"not_yet_due", "pending"}
    backwards = {"from": window["to"], "to": window["from"]}
    problem(t.viewer.get(f"/v1/rules/{rule['id']}/timeline", params=backwards), 422)
    stats = t.viewer.get(f"/v1/rules/{rule['id']}/stats")
    assert stats.status_code == 200 and stats.json()["rule_id"] == rule["id"]


def test_actions_idempotent_by_key_cancel_and_list_by_status(new_tenant, problem) -> None:
    t = new_tenant()
    body = {"run_at": FUTURE, "key": "invoice-1", "code": SCRIPT}
    first = t.editor.post("/v1/actions", json=body)
    assert first.status_code == 201, first.text
    again = t.editor.post("/v1/actions", json={**body, "run_at": "2099-02-01T09:00:00Z"})
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["due_at"].startswith("2099-02-01")
    pending = t.viewer.get("/v1/actions", params={"status": "pending"}).json()["items"]
    assert [a["id"] for a in pending] == [first.json()["id"]]
    cancelled = t.editor.post(f"/v1/actions/{first.json()['id']}/cancel")
    assert cancelled.json()["status"] == "cancelled"
    problem(t.editor.post(f"/v1/actions/{first.json()['id']}/cancel"), 409, "invalid-state")
    assert t.viewer.get("/v1/actions", params={"status": "pending"}).json()["items"] == []
    problem(t.viewer.get("/v1/actions", params={"status": "bogus"}), 422)


def test_trigger_and_backfill_plan_actions(new_tenant) -> None:
    t = new_tenant()
    since_monday = "DTSTART;TZID=Europe/Berlin:20260105T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE"
    rule = t.editor.post("/v1/rules", json={**RULE, "schedule": since_monday}).json()
    triggered = t.editor.post(f"/v1/rules/{rule['id']}/trigger")
    assert triggered.status_code == 201 and triggered.json()["rule_id"] == rule["id"]
    window = {"start": "2026-01-05T00:00:00Z", "end": "2026-01-08T00:00:00Z"}  # Mon..Wed
    backfill = t.editor.post(f"/v1/rules/{rule['id']}/backfill", json=window)
    assert backfill.status_code == 201, backfill.text
    assert len(backfill.json()["items"]) == 3
