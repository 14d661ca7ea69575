"""`PUT /v1/rules/{id}`: create or replace by the client's id, idempotent, race-safe, re-planned
like an edit, on SQLite and PostgreSQL (the server fixture runs once per kind)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import httpx

SCRIPT = "def main(ctx):\n    return 1\n"
RULE = {"name": "case reminder", "schedule": "FREQ=DAILY;BYHOUR=9", "code": SCRIPT}


def _id(prefix: str = "case") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _pending(tenant, rule_id: str) -> list[dict]:
    params = {"rule_id": rule_id, "status": "pending"}
    return tenant.viewer.get("/v1/actions", params=params).json()["items"]


def test_put_creates_then_the_same_body_again_changes_nothing(new_tenant) -> None:
    tenant, rule_id = new_tenant(), _id()
    created = tenant.editor.put(f"/v1/rules/{rule_id}", json=RULE)
    assert created.status_code == 201, created.text
    assert created.headers["Location"] == f"/v1/rules/{rule_id}"
    assert created.json()["id"] == rule_id and created.headers["ETag"] == '"1"'
    again = tenant.editor.put(f"/v1/rules/{rule_id}", json=RULE)
    assert again.status_code == 200, again.text
    assert again.json() == created.json()
    assert len(_pending(tenant, rule_id)) == 1
    ids = [r["id"] for r in tenant.viewer.get("/v1/rules").json()["items"]]
    assert ids == [rule_id]


def test_replace_is_a_new_version_whole_and_replans_once(new_tenant) -> None:
    tenant, rule_id = new_tenant(), _id()
    first = tenant.editor.put(f"/v1/rules/{rule_id}", json=RULE | {"priority": 5}).json()
    before = _pending(tenant, rule_id)
    body = {"name": "moved", "schedule": "FREQ=DAILY;BYHOUR=15", "code": SCRIPT}
    replaced = tenant.editor.put(f"/v1/rules/{rule_id}", json=body)
    assert replaced.status_code == 200, replaced.text
    rule = replaced.json()
    assert rule["version"] == first["version"] + 1 and rule["name"] == "moved"
    assert rule["priority"] == 0  # left out: the default, not the old value
    after = _pending(tenant, rule_id)
    assert len(after) == 1 and after[0]["id"] != before[0]["id"]
    assert after[0]["rule_version"] == rule["version"]
    old = tenant.viewer.get(f"/v1/actions/{before[0]['id']}").json()
    assert old["status"] == "cancelled" and old["reason"] == "rule_changed"


def test_replacing_only_enabled_pauses_and_keeps_an_etag_current(new_tenant) -> None:
    tenant, rule_id = new_tenant(), _id()
    path = f"/v1/rules/{rule_id}"
    etag = tenant.editor.put(path, json=RULE).headers["ETag"]
    paused = tenant.editor.put(path, json=RULE | {"enabled": False})
    assert paused.status_code == 200 and paused.json()["enabled"] is False
    assert _pending(tenant, rule_id) == []
    edited = tenant.editor.patch(path, json={"name": "later"}, headers={"If-Match": etag})
    assert edited.status_code == 200, edited.text


def test_if_match_guards_a_replace_and_never_creates(new_tenant, problem) -> None:
    tenant, rule_id = new_tenant(), _id()
    path = f"/v1/rules/{rule_id}"
    absent = tenant.editor.put(path, json=RULE, headers={"If-Match": "*"})
    problem(absent, 404, "not-found")
    assert tenant.viewer.get(path).status_code == 404
    tenant.editor.put(path, json=RULE)
    assert tenant.editor.patch(path, json={"name": "edited"}).status_code == 200
    stale = tenant.editor.put(path, json=RULE | {"name": "x"}, headers={"If-Match": '"1"'})
    assert problem(stale, 412, "stale-version")["current_version"] == 2
    assert tenant.viewer.get(path).json()["name"] == "edited"
    fresh = tenant.editor.put(path, json=RULE | {"name": "y"}, headers={"If-Match": '"2"'})
    assert fresh.status_code == 200 and fresh.json()["name"] == "y"


def test_a_server_id_is_replaced_but_never_created(new_tenant, problem) -> None:
    tenant = new_tenant()
    made = tenant.editor.post("/v1/rules", json=RULE).json()
    replaced = tenant.editor.put(f"/v1/rules/{made['id']}", json=RULE | {"name": "mine"})
    assert replaced.status_code == 200 and replaced.json()["name"] == "mine"
    missing = tenant.editor.put("/v1/rules/r_0000000000000000", json=RULE)
    assert "made by the server" in problem(missing, 404, "not-found")["detail"]


def test_bad_ids_and_bodies_answer_422_naming_the_field_and_change_nothing(
    new_tenant, problem
) -> None:
    tenant = new_tenant()
    for bad in ("-lead", "has%20space", "x" * 41, "%C3%BCmlaut", "a.b~c%21"):
        answer = problem(tenant.editor.put(f"/v1/rules/{bad}", json=RULE), 422, "validation")
        assert answer["errors"][0]["field"] == "rule_id", (bad, answer)
    viewer = tenant.viewer.put(f"/v1/rules/{_id()}", json=RULE)
    problem(viewer, 403, "forbidden")
    body = problem(tenant.editor.put(f"/v1/rules/{_id()}", json=RULE | {"schedule": "nope"}), 422)
    assert body["errors"][0]["field"] == "schedule"
    missing = problem(tenant.editor.put(f"/v1/rules/{_id()}", json={"name": "x"}), 422)
    assert missing["errors"][0]["field"] in ("schedule", "code")
    assert tenant.viewer.get("/v1/rules").json()["items"] == []


def test_another_tenants_id_is_taken_and_untouched(new_tenant, problem) -> None:
    owner, other, rule_id = new_tenant(), new_tenant(), _id()
    owner.editor.put(f"/v1/rules/{rule_id}", json=RULE)
    taken = problem(other.editor.put(f"/v1/rules/{rule_id}", json=RULE | {"name": "x"}), 409)
    assert "taken" in taken["detail"] and "case reminder" not in str(taken)
    assert owner.viewer.get(f"/v1/rules/{rule_id}").json()["name"] == "case reminder"
    assert other.viewer.get(f"/v1/rules/{rule_id}").status_code == 404
    assert other.viewer.get("/v1/rules").json()["items"] == []


def _race(tenant, server_url: str, rule_id: str, bodies: list[dict]) -> list[httpx.Response]:
    """Every body PUT at once, each from its own connection."""
    start = Barrier(len(bodies))
    headers = {"Authorization": f"Bearer {tenant.keys['editor']}"}

    def put(body: dict) -> httpx.Response:
        with httpx.Client(base_url=server_url, headers=headers, timeout=60) as client:
            start.wait()
            return client.put(f"/v1/rules/{rule_id}", json=body)

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(put, bodies))


def test_concurrent_puts_of_one_new_id_end_with_one_rule(new_tenant, server) -> None:
    tenant = new_tenant()
    for round_ in range(3):
        rule_id = _id(f"race{round_}")
        bodies = [RULE | {"name": f"writer {n}", "priority": n} for n in range(6)]
        answers = _race(tenant, server.base_url, rule_id, bodies)
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [200] * 5 + [201], [a.text for a in answers]
        rule = tenant.viewer.get(f"/v1/rules/{rule_id}").json()
        # One body whole, never a mix of two.
        assert (rule["name"], rule["priority"]) in {(b["name"], b["priority"]) for b in bodies}
        assert len(_pending(tenant, rule_id)) == 1
    names = [r["id"] for r in tenant.viewer.get("/v1/rules").json()["items"]]
    assert len(names) == len(set(names)) == 3


def test_concurrent_puts_of_the_same_body_answer_one_created(new_tenant, server) -> None:
    tenant, rule_id = new_tenant(), _id()
    answers = _race(tenant, server.base_url, rule_id, [RULE] * 5)
    assert sorted(a.status_code for a in answers) == [200] * 4 + [201]
    assert {a.json()["version"] for a in answers} == {1}
    assert len(_pending(tenant, rule_id)) == 1
