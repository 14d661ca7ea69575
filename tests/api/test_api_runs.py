"""Runs and events produced by the real engine inside `cadenza serve`, read over HTTP."""

from __future__ import annotations

SCRIPT = (
    "def main(ctx):\n    print('hello')\n    ctx.emit('reminder', {'n': 1})\n    return {'ok': 1}\n"
)
FAILING = "def main(ctx):\n    x = 1\n    raise ValueError('boom')\n"


def _rule(client, code: str, name: str = "runs") -> dict:
    body = {"name": name, "schedule": "FREQ=DAILY;BYHOUR=9", "code": code, "max_attempts": 1}
    created = client.post("/v1/rules", json=body)
    assert created.status_code == 201, created.text
    return created.json()


def test_trigger_runs_and_the_run_shows_output_and_result(new_tenant, wait_for) -> None:
    t = new_tenant()
    rule = _rule(t.editor, SCRIPT)
    assert t.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    runs = wait_for(
        lambda: t.viewer.get("/v1/runs", params={"rule_id": rule["id"]}).json()["items"]
    )
    assert runs[0]["outcome"] == "ok" and "stdout" not in runs[0]
    run = t.viewer.get(f"/v1/runs/{runs[0]['id']}").json()
    assert run["stdout"].strip() == "hello" and run["result"] == {"ok": 1}
    assert run["error"] is None and run["rule_id"] == rule["id"]
    ok_only = t.viewer.get("/v1/runs", params={"status": "ok"}).json()["items"]
    assert [r["id"] for r in ok_only] == [run["id"]]
    assert t.viewer.get("/v1/runs", params={"status": "error"}).json()["items"] == []


def test_failed_run_shows_error_and_line(new_tenant, wait_for) -> None:
    t = new_tenant()
    rule = _rule(t.editor, FAILING, name="failing")
    assert t.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    runs = wait_for(lambda: t.viewer.get("/v1/runs", params={"status": "error"}).json()["items"])
    run = t.viewer.get(f"/v1/runs/{runs[0]['id']}").json()
    assert "boom" in run["error"] and run["error_line"] == 3


def test_event_feed_continues_after_its_cursor(new_tenant, wait_for) -> None:
    t = new_tenant()
    rule = _rule(t.editor, SCRIPT)
    assert t.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    first = wait_for(
        lambda: t.viewer.get("/v1/events").json()["items"] and t.viewer.get("/v1/events").json()
    )
    assert [e["type"] for e in first["items"]] == ["reminder"]
    assert first["items"][0]["payload"] == {"n": 1} and first["items"][0]["rule_id"] == rule["id"]
    nothing_new = t.viewer.get("/v1/events", params={"after": first["next_cursor"]}).json()
    assert nothing_new == {"items": [], "next_cursor": first["next_cursor"]}
    assert t.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    second = wait_for(
        lambda: t.viewer.get("/v1/events", params={"after": first["next_cursor"]}).json()["items"]
    )
    assert len(second) == 1 and second[0]["id"] > first["items"][0]["id"]


def test_runs_and_events_of_another_tenant_are_404_and_unlisted(
    new_tenant, problem, wait_for
) -> None:
    a, b = new_tenant(), new_tenant()
    rule = _rule(b.editor, SCRIPT)
    assert b.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    runs = wait_for(lambda: b.viewer.get("/v1/runs").json()["items"])
    events = wait_for(lambda: b.viewer.get("/v1/events").json()["items"])
    assert events[0]["type"] == "reminder"
    problem(a.admin.get(f"/v1/runs/{runs[0]['id']}"), 404, "not-found")
    assert a.admin.get("/v1/runs").json()["items"] == []
    assert a.admin.get("/v1/runs", params={"rule_id": rule["id"]}).json()["items"] == []
    assert a.admin.get("/v1/events").json()["items"] == []
    before_b = {"after": "eyJhZnRlciI6MH0"}  # a cursor from before every event
    assert a.admin.get("/v1/events", params=before_b).json()["items"] == []
    problem(a.admin.post(f"/v1/actions/{runs[0]['action_id']}/retry"), 404, "not-found")
    assert b.viewer.get(f"/v1/runs/{runs[0]['id']}").status_code == 200
