"""Notification routes through a real server: create, read, page, delete; bad input refused
naming the field and changing nothing; Slack URLs held to the webhook URL policy (no loopback,
private or link-local host); a route naming another tenant's rule refused like a missing one.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

SCRIPT = "def main(ctx):\n    pass\n"
EMAIL_ROUTE = {"events": ["failed", "recovered"], "channel": "email", "target": "ops@example.com"}


def _rule_id(tenant) -> str:
    rule = {"name": "nightly", "schedule": "FREQ=DAILY;BYHOUR=3", "code": SCRIPT}
    created = tenant.editor.post("/v1/rules", json=rule)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def _route_ids(tenant, **params: Any) -> list[int]:
    page = tenant.viewer.get("/v1/notification-routes", params=params).json()
    return [route["id"] for route in page["items"]]


def test_create_get_page_delete_round_trip(new_tenant, problem) -> None:
    t = new_tenant()
    rule_id = _rule_id(t)
    bodies = [
        EMAIL_ROUTE | {"events": ["recovered", "failed", "failed"]},
        {"events": ["skipped", "expired"], "channel": "webhook", "digest_minutes": 60},
        {"events": ["failed"], "channel": "slack", "target": "https://hooks.example.com/T1/B2",
         "rule_id": rule_id},
    ]  # fmt: skip
    created = [t.editor.post("/v1/notification-routes", json=body) for body in bodies]
    assert [c.status_code for c in created] == [201, 201, 201], [c.text for c in created]
    first = created[0].json()
    assert first["events"] == ["failed", "recovered"] and first["rule_id"] is None
    assert first["digest_minutes"] is None and first["target"] == "ops@example.com"
    assert created[1].json()["target"] == "" and created[1].json()["digest_minutes"] == 60
    assert t.viewer.get(f"/v1/notification-routes/{first['id']}").json() == first
    ids = [c.json()["id"] for c in created]
    page = t.viewer.get("/v1/notification-routes", params={"limit": 2}).json()
    rest = t.viewer.get("/v1/notification-routes", params={"cursor": page["next_cursor"]}).json()
    assert [r["id"] for r in page["items"] + rest["items"]] == ids and rest["next_cursor"] is None
    assert _route_ids(t, rule_id=rule_id) == [ids[2]]
    assert t.editor.delete(f"/v1/notification-routes/{ids[0]}").status_code == 204
    problem(t.viewer.get(f"/v1/notification-routes/{ids[0]}"), 404, "not-found")
    problem(t.editor.delete(f"/v1/notification-routes/{ids[0]}"), 404, "not-found")
    assert _route_ids(t) == ids[1:]


BAD_BODIES = [
    ({"events": [], "channel": "email", "target": "a@b.co"}, "events"),
    ({"events": ["exploded"], "channel": "email", "target": "a@b.co"}, "events"),
    ({"events": ["failed"], "channel": "pager", "target": "a@b.co"}, "channel"),
    ({"events": ["failed"], "channel": "email", "target": "not an address"}, "target"),
    ({"events": ["failed"], "channel": "email"}, "target"),
    ({"events": ["failed"], "channel": "webhook", "target": "https://x.example.com"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "ftp://hooks.example.com/x"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "https://127.0.0.1/hook"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "http://localhost:8080/x"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "http://10.0.0.7/x"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "http://169.254.169.254/"}, "target"),
    ({"events": ["failed"], "channel": "slack", "target": "http://[::1]/x"}, "target"),
    ({"events": ["failed"], "channel": "webhook", "digest_minutes": 0}, "digest_minutes"),
    ({"events": ["failed"], "channel": "webhook", "digest_minutes": 1441}, "digest_minutes"),
    ({"events": ["failed"], "channel": "webhook", "rule_id": "r/../x"}, "rule_id"),
    ({"events": ["failed"], "channel": "webhook", "rule_id": "r_0000000000000000"}, "rule_id"),
    ({"events": ["failed"], "channel": "webhook", "extra": 1}, "extra"),
]


def test_bad_routes_are_refused_naming_the_field_and_change_nothing(new_tenant, problem) -> None:
    t = new_tenant()
    kept = t.editor.post("/v1/notification-routes", json=EMAIL_ROUTE).json()
    for body, field in BAD_BODIES:
        answer = problem(t.editor.post("/v1/notification-routes", json=body), 422)
        assert any(field in e["field"] for e in answer["errors"]), (body, answer)
    assert _route_ids(t) == [kept["id"]]
    for bad_id in ("0", "-1", "abc", str(2**63)):
        problem(t.viewer.get(f"/v1/notification-routes/{bad_id}"), 422)
    problem(t.viewer.get("/v1/notification-routes", params={"cursor": "!!"}), 422)


def test_a_viewer_reads_but_cannot_write_routes(new_tenant, problem) -> None:
    t = new_tenant()
    problem(t.viewer.post("/v1/notification-routes", json=EMAIL_ROUTE), 403, "forbidden")
    route = t.editor.post("/v1/notification-routes", json=EMAIL_ROUTE).json()
    problem(t.viewer.delete(f"/v1/notification-routes/{route['id']}"), 403, "forbidden")
    assert _route_ids(t) == [route["id"]]


def test_a_route_cannot_name_another_tenants_rule(new_tenant, problem) -> None:
    a, b = new_tenant(), new_tenant()
    theirs = _rule_id(b)
    body = EMAIL_ROUTE | {"rule_id": theirs}
    answer = problem(a.editor.post("/v1/notification-routes", json=body), 422)
    assert answer["errors"][0]["field"] == "rule_id" and _route_ids(a) == []


def test_a_deleted_rule_cannot_get_a_route(new_tenant, problem) -> None:
    t = new_tenant()
    rule_id = _rule_id(t)
    assert t.editor.delete(f"/v1/rules/{rule_id}").status_code == 204
    problem(t.editor.post("/v1/notification-routes", json=EMAIL_ROUTE | {"rule_id": rule_id}), 422)


_TEXT = st.one_of(st.text(max_size=30), st.sampled_from(["a@b.co", "https://h.example.com/x"]))
_BODY = st.fixed_dictionaries(
    {
        "events": st.lists(st.sampled_from(["failed", "recovered", "skipped", "expired", "x"])),
        "channel": st.sampled_from(["webhook", "email", "slack", "", "sms"]),
    },
    optional={
        "target": _TEXT,
        "digest_minutes": st.one_of(st.none(), st.integers(-5, 3000), st.text(max_size=3)),
        "rule_id": st.one_of(st.none(), st.text(max_size=45)),
    },
)


def test_any_body_is_created_whole_or_refused_with_a_field(new_tenant) -> None:
    t = new_tenant()  # one tenant for every example: each adds at most one route

    @settings(max_examples=60, deadline=None)
    @given(body=_BODY)
    def check(body: dict[str, Any]) -> None:
        before = _route_ids(t, limit=200)
        answer = t.editor.post("/v1/notification-routes", json=body)
        assert answer.status_code in (201, 422), answer.text
        if answer.status_code == 422:
            assert answer.json()["errors"][0]["field"] and _route_ids(t, limit=200) == before
            return
        created = answer.json()
        assert (
            created["events"] == sorted(set(body["events"]))
            and created["channel"] == body["channel"]
        )
        assert sorted(_route_ids(t, limit=200)) == sorted([*before, created["id"]])

    check()
