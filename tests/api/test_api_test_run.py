"""`POST /v1/rules/test-run`: a script runs once in the real sandbox and nothing is saved."""

from __future__ import annotations

SCRIPT = """
def main(ctx):
    seen = ctx.kv.get("counter", 0)
    ctx.kv.set("counter", seen + 1)
    ctx.kv.delete("stale")
    ctx.emit("email", {"to": ctx.params["to"]})
    print("counted", seen + 1)
    return {"counted": seen + 1}
"""


def test_test_run_shows_effects_and_saves_nothing(new_tenant) -> None:
    t = new_tenant()
    assert t.editor.put("/v1/kv/counter", json={"value": 41}).status_code in (200, 201)
    assert t.editor.put("/v1/kv/stale", json={"value": True}).status_code in (200, 201)
    answer = t.editor.post(
        "/v1/rules/test-run", json={"code": SCRIPT, "params": {"to": "ops@example.com"}}
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "ok" and body["result"] == {"counted": 42}
    assert body["stdout"] == "counted 42\n"
    assert body["events"] == [{"type": "email", "payload": {"to": "ops@example.com"}}]
    assert body["kv_changes"] == {"counter": 42, "stale": None}
    assert t.viewer.get("/v1/kv/counter").json()["value"] == 41
    assert t.viewer.get("/v1/kv/stale").status_code == 200
    assert t.viewer.get("/v1/runs").json()["items"] == []
    assert t.viewer.get("/v1/events").json()["items"] == []


def test_test_run_reports_a_failing_script_as_data(new_tenant) -> None:
    t = new_tenant()
    failing = "def main(ctx):\n    return 1 / 0\n"
    body = t.editor.post("/v1/rules/test-run", json={"code": failing}).json()
    assert body["status"] == "error" and "division by zero" in body["error"]
    assert body["error_line"] == 2
    broken = t.editor.post("/v1/rules/test-run", json={"code": "def main(:\n"}).json()
    assert broken["status"] == "rejected" and broken["error_line"] == 1


def test_test_run_needs_an_editor_and_respects_quotas(new_tenant, problem) -> None:
    t = new_tenant({"max_timeout_ms": 1000})
    script = {"code": "def main(ctx):\n    return 1\n"}
    problem(t.viewer.post("/v1/rules/test-run", json=script), 403)
    body = problem(t.editor.post("/v1/rules/test-run", json=script | {"timeout_ms": 5000}), 422)
    assert "max_timeout_ms" in body["detail"] or body.get("quota") == "max_timeout_ms"
