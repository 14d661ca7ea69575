"""One-offs through the API: `expires_at` and `priority`, 201 for a new action and 200 for a
resubmitted key, and a cancel of a run that started answered precisely (409, never a silent
success); bad input saves nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

CODE = "def main(ctx):\n    return 1\n"
#: Runs until its time limit, asleep: it holds a slot, not a core.
WAIT = "import time\ndef main(ctx):\n    time.sleep(60)\n"
RUN_AT = datetime(2031, 1, 1, 9, tzinfo=UTC)


def _submit(client: Any, **fields: Any) -> Any:
    body = {"run_at": RUN_AT.isoformat(), "code": CODE, **fields}
    return client.post("/v1/actions", json=body)


def test_a_new_key_is_201_and_the_same_key_again_is_200_on_one_action(new_tenant) -> None:
    t = new_tenant()
    first = _submit(t.editor, key="invoice-42", priority=5)
    again = _submit(t.editor, key="invoice-42", priority=9)
    assert (first.status_code, again.status_code) == (201, 200), again.text
    assert again.json()["id"] == first.json()["id"] and again.json()["priority"] == 9
    unkeyed = [_submit(t.editor).status_code for _ in range(2)]
    assert unkeyed == [201, 201]
    assert len(t.viewer.get("/v1/actions").json()["items"]) == 3


def test_expires_at_and_priority_are_kept_and_shown(new_tenant) -> None:
    t = new_tenant()
    expires_at = RUN_AT + timedelta(hours=1)
    made = _submit(t.editor, expires_at=expires_at.isoformat(), priority=-7)
    assert made.status_code == 201, made.text
    shown = t.viewer.get(f"/v1/actions/{made.json()['id']}").json()
    assert datetime.fromisoformat(shown["expires_at"]) == expires_at
    assert (shown["priority"], shown["started_at"]) == (-7, None)


def test_a_one_off_is_saved_exactly_when_its_expiry_and_priority_are_valid(
    new_tenant, problem
) -> None:
    t = new_tenant()  # one tenant for every example: each adds at most one action

    def saved_ids() -> list[str]:
        return [a["id"] for a in t.viewer.get("/v1/actions", params={"limit": 200}).json()["items"]]

    @settings(max_examples=40, deadline=None)
    @given(
        expires_in_s=st.one_of(st.none(), st.integers(-(10**6), 10**6)),
        priority=st.one_of(st.none(), st.integers(-5000, 5000)),
    )
    def check(expires_in_s: int | None, priority: int | None) -> None:
        before = saved_ids()
        fields: dict[str, Any] = {"priority": priority}
        if expires_in_s is not None:
            fields["expires_at"] = (RUN_AT + timedelta(seconds=expires_in_s)).isoformat()
        answer = _submit(t.editor, **fields)
        valid_expiry = expires_in_s is None or expires_in_s > 0
        valid_priority = priority is None or -1000 <= priority <= 1000
        if valid_expiry and valid_priority:
            assert answer.status_code == 201, answer.text
            assert sorted(saved_ids()) == sorted([*before, answer.json()["id"]])
        else:
            body = problem(answer, 422)
            field = "priority" if not valid_priority else "expires_at"
            assert any(e["field"] == field for e in body["errors"]), body
            assert saved_ids() == before

    check()


def test_cancelling_a_run_that_started_is_409_saying_why(new_tenant, problem, wait_for) -> None:
    t = new_tenant()
    # A one-off of a rule takes the rule's limits: a 2 s time limit and a single attempt.
    rule = {"name": "w", "schedule": "every 24h", "code": WAIT, "enabled": False}
    rule |= {"timeout_ms": 2000, "max_attempts": 1}
    rule_id = t.editor.post("/v1/rules", json=rule).json()["id"]
    now = datetime.now(UTC).isoformat()
    action = t.editor.post("/v1/actions", json={"run_at": now, "rule_id": rule_id}).json()
    path = f"/v1/actions/{action['id']}"
    started = wait_for(lambda: (a := t.viewer.get(path).json())["started_at"] and a)
    assert started["status"] == "running"
    body = problem(t.editor.post(f"{path}/cancel"), 409, "invalid-state")
    assert f"action {action['id']} is running since" in body["detail"]
    assert "not interrupted" in body["detail"]
    ended = wait_for(lambda: (a := t.viewer.get(path).json())["finished_at"] and a, timeout_s=60)
    assert ended["status"] == "failed" and ended["reason"] != "user"


def test_a_pending_one_off_can_be_cancelled_once(new_tenant, problem) -> None:
    t = new_tenant()
    action = _submit(t.editor).json()
    path = f"/v1/actions/{action['id']}/cancel"
    assert t.editor.post(path).json()["status"] == "cancelled"
    body = problem(t.editor.post(path), 409, "invalid-state")
    assert "cancelled already" in body["detail"]


def test_revoking_a_revoked_key_is_409_and_keeps_its_time(new_tenant, problem) -> None:
    t = new_tenant()
    key = t.admin.post("/v1/keys", json={"role": "viewer"}).json()
    first = t.admin.delete(f"/v1/keys/{key['id']}")
    assert first.status_code == 200 and first.json()["revoked_at"]
    body = problem(t.admin.delete(f"/v1/keys/{key['id']}"), 409, "conflict")
    assert key["id"] in body["detail"] and "revoked already" in body["detail"]
    listed = {k["id"]: k for k in t.admin.get("/v1/keys").json()["items"]}
    assert listed[key["id"]]["revoked_at"] == first.json()["revoked_at"]
    other = new_tenant()
    problem(other.admin.delete(f"/v1/keys/{key['id']}"), 404, "not-found")
