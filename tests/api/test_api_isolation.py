"""Tenant isolation: another tenant's objects are invisible (404, never 403) and untouchable.

Tenant B owns a rule, a one-off action, a data item and a key. Tenant A's admin key (the most
powerful a tenant has) tries every tenant-scoped endpoint on them; each answers 404, A's lists
never show them, and B finds everything exactly as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

SCRIPT = "def main(ctx):\n    ctx.emit('reminder', {'n': 1})\n"
RULE = {
    "name": "b-rule",
    "schedule": "FREQ=DAILY;BYHOUR=9",
    "code": SCRIPT,
    "labels": {"team": "b"},
}
FUTURE = "2099-01-01T09:00:00+00:00"


@dataclass
class Owned:
    rule: dict[str, Any]
    action: dict[str, Any]
    kv_key: str
    key_id: str
    calendar: str = "b-holidays"
    route_id: int = 0


def _own_objects(tenant) -> Owned:
    rule = tenant.editor.post("/v1/rules", json=RULE)
    assert rule.status_code == 201, rule.text
    action = tenant.editor.post(
        "/v1/actions", json={"run_at": FUTURE, "key": "b-once", "code": SCRIPT}
    )
    assert action.status_code == 201, action.text
    assert tenant.editor.put("/v1/kv/b-secret", json={"value": "b-only"}).status_code == 200
    key = tenant.admin.post("/v1/keys", json={"role": "viewer", "name": "b-key"})
    assert key.status_code == 201
    calendar = tenant.editor.put("/v1/calendars/b-holidays", json={"excluded": ["2099-12-25"]})
    assert calendar.status_code == 201, calendar.text
    route = {"events": ["failed"], "channel": "email", "target": "b@example.com"}
    route["rule_id"] = rule.json()["id"]
    made = tenant.editor.post("/v1/notification-routes", json=route)
    assert made.status_code == 201, made.text
    owned = Owned(rule.json(), action.json(), "b-secret", key.json()["id"])
    owned.route_id = made.json()["id"]
    return owned


@pytest.fixture
def two_tenants(new_tenant):
    a, b = new_tenant(), new_tenant()
    return a, b, _own_objects(b)


def _cross_requests(owned: Owned) -> list[tuple[str, str, dict[str, Any] | None]]:
    rule, action = owned.rule["id"], owned.action["id"]
    window = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-03T00:00:00Z"}
    return [
        ("GET", f"/v1/rules/{rule}", None),
        ("PATCH", f"/v1/rules/{rule}", {"name": "stolen"}),
        ("DELETE", f"/v1/rules/{rule}", None),
        ("POST", f"/v1/rules/{rule}/pause", None),
        ("POST", f"/v1/rules/{rule}/resume", None),
        ("POST", f"/v1/rules/{rule}/trigger", None),
        ("POST", f"/v1/rules/{rule}/backfill", window),
        ("GET", f"/v1/rules/{rule}/timeline", None),
        ("GET", f"/v1/rules/{rule}/stats", None),
        ("POST", f"/v1/rules/{rule}/preview", {"schedule": "FREQ=HOURLY"}),
        # issue 22, history: versions, diff, rollback
        ("GET", f"/v1/rules/{rule}/versions", None),
        ("GET", f"/v1/rules/{rule}/versions/1", None),
        ("GET", f"/v1/rules/{rule}/versions/1/diff", None),
        ("POST", f"/v1/rules/{rule}/rollback", {"version": 1}),
        ("POST", "/v1/actions", {"run_at": FUTURE, "rule_id": rule}),
        ("GET", f"/v1/actions/{action}", None),
        ("POST", f"/v1/actions/{action}/cancel", None),
        ("POST", f"/v1/actions/{action}/retry", None),
        ("GET", f"/v1/kv/{owned.kv_key}", None),
        ("DELETE", f"/v1/kv/{owned.kv_key}", None),
        ("DELETE", f"/v1/keys/{owned.key_id}", None),
        ("GET", f"/v1/calendars/{owned.calendar}", None),
        ("DELETE", f"/v1/calendars/{owned.calendar}", None),
        ("GET", f"/v1/notification-routes/{owned.route_id}", None),
        ("DELETE", f"/v1/notification-routes/{owned.route_id}", None),
        # Labels, client-chosen ids and bulk operations (issue 22).
        ("PUT", f"/v1/rules/{rule}", RULE | {"name": "stolen"}),
        ("PUT", f"/v1/rules/{rule}", RULE | {"labels": {"stolen": "yes"}}),
    ]


def _masked(body: dict[str, Any], owned: Owned) -> dict[str, Any]:
    text = json.dumps(body)
    values = (owned.rule["id"], str(owned.action["id"]), owned.kv_key, owned.key_id)
    values += (owned.calendar,)
    # A route id is a small number: masked only where it names a route, never inside "404".
    values += (f"notification-routes/{owned.route_id}", f"notification route {owned.route_id}")
    for value in sorted(values, key=len, reverse=True):  # an action id may hide in a key id
        # whole tokens only: action 4 must not mask the 4s of "status": 404
        text = re.sub(rf"(?<![0-9A-Za-z_]){re.escape(value)}(?![0-9A-Za-z_])", "ID", text)
    return json.loads(text)


def test_other_tenants_objects_are_404_and_untouched(two_tenants, problem) -> None:
    a, b, owned = two_tenants
    missing = Owned(
        {"id": "r_0000000000000000"}, {"id": 2**62}, "no-such-item", "k_00000000", "no-such-cal"
    )
    missing.route_id = 2**62
    pairs = zip(_cross_requests(owned), _cross_requests(missing), strict=True)
    for (method, path, body), (_, missing_path, missing_body) in pairs:
        theirs = problem(a.admin.request(method, path, json=body), 404, "not-found")
        absent = problem(a.admin.request(method, missing_path, json=missing_body), 404)
        # No existence leak: B's object answers exactly like an id that does not exist.
        assert _masked(theirs, owned) == _masked(absent, missing), (method, path)
    rule = b.viewer.get(f"/v1/rules/{owned.rule['id']}").json()
    assert rule["name"] == "b-rule" and rule["version"] == owned.rule["version"]
    assert rule["enabled"] is True
    assert b.viewer.get(f"/v1/actions/{owned.action['id']}").json()["status"] == "pending"
    assert b.viewer.get("/v1/kv/b-secret").json()["value"] == "b-only"
    keys = b.admin.get("/v1/keys").json()["items"]
    assert next(k for k in keys if k["id"] == owned.key_id)["revoked_at"] is None
    assert b.viewer.get("/v1/calendars/b-holidays").json()["excluded"] == ["2099-12-25"]
    assert b.viewer.get(f"/v1/notification-routes/{owned.route_id}").status_code == 200


def test_lists_never_show_other_tenants_objects(two_tenants) -> None:
    a, _b, owned = two_tenants
    assert a.editor.put("/v1/kv/a-item", json={"value": 1}).status_code == 200
    rule_filter = {"rule_id": owned.rule["id"]}
    for path, params in [
        ("/v1/rules", {}),
        ("/v1/actions", {}),
        ("/v1/actions", rule_filter),
        ("/v1/runs", {}),
        ("/v1/runs", rule_filter),
        ("/v1/events", {}),
        ("/v1/kv", {}),
        ("/v1/keys", {}),
        ("/v1/calendars", {}),
        ("/v1/notification-routes", {}),
        ("/v1/notification-routes", rule_filter),
        ("/v1/rules", {"label": "team=b"}),
        ("/v1/rules", {"state": "active", "runtime": "python"}),
        ("/v1/runs", {"rule_label": "team"}),
        # issue 22, history: the audit log, unfiltered and aimed at B's objects and key
        ("/v1/audit", {}),
        ("/v1/audit", {"object_kind": "rule", "object_id": owned.rule["id"]}),
        ("/v1/audit", {"actor": owned.key_id}),
    ]:
        answer = a.admin.get(path, params=params)
        assert answer.status_code == 200, (path, answer.text)
        text = answer.text
        assert owned.rule["id"] not in text and "b-secret" not in text and owned.key_id not in text
        assert owned.calendar not in text
        ids = [item.get("id") for item in answer.json()["items"]]
        assert owned.action["id"] not in ids or path not in ("/v1/actions",)
        assert owned.route_id not in ids or path != "/v1/notification-routes"
    assert [i["key"] for i in a.viewer.get("/v1/kv").json()["items"]] == ["a-item"]
    assert a.viewer.get("/v1/actions").json()["items"] == []


def test_a_route_naming_another_tenants_rule_is_refused_like_a_missing_rule(
    two_tenants, problem
) -> None:
    a, _b, owned = two_tenants
    body = {"events": ["failed"], "channel": "webhook", "rule_id": owned.rule["id"]}
    theirs = problem(a.admin.post("/v1/notification-routes", json=body), 422)
    body["rule_id"] = "r_0000000000000000"
    missing = problem(a.admin.post("/v1/notification-routes", json=body), 422)
    # No existence leak: B's rule answers exactly like a rule id that does not exist.
    masked = json.dumps(theirs).replace(owned.rule["id"], body["rule_id"])
    assert json.loads(masked) == missing
    assert a.viewer.get("/v1/notification-routes").json()["items"] == []


def test_bulk_operations_by_another_tenants_labels_change_nothing_of_theirs(two_tenants) -> None:
    a, b, owned = two_tenants
    for operation in ("pause", "delete"):
        for dry_run in (True, False):
            body = {"operation": operation, "dry_run": dry_run}
            answer = a.admin.post("/v1/rules/bulk", params={"label": "team=b"}, json=body)
            assert answer.status_code == 200, answer.text
            assert (answer.json()["count"], answer.json()["ids"]) == (0, [])
    rule = b.viewer.get(f"/v1/rules/{owned.rule['id']}").json()
    assert rule["enabled"] is True and rule["version"] == owned.rule["version"]


def test_kv_put_with_the_same_key_writes_only_the_callers_data(two_tenants) -> None:
    a, b, _owned = two_tenants
    assert a.editor.put("/v1/kv/b-secret", json={"value": "a-value"}).status_code == 200
    assert b.viewer.get("/v1/kv/b-secret").json()["value"] == "b-only"
    assert a.viewer.get("/v1/kv/b-secret").json()["value"] == "a-value"


def test_idempotency_keys_are_per_tenant(two_tenants) -> None:
    a, b, owned = two_tenants
    mine = a.editor.post("/v1/actions", json={"run_at": FUTURE, "key": "b-once", "code": SCRIPT})
    assert mine.status_code == 201 and mine.json()["id"] != owned.action["id"]
    assert b.viewer.get(f"/v1/actions/{owned.action['id']}").json()["key"] == "b-once"


def _writes(owned: Owned) -> list[tuple[str, str, dict[str, Any] | None]]:
    rule, action = owned.rule["id"], owned.action["id"]
    return [
        ("POST", "/v1/rules", RULE),
        ("PATCH", f"/v1/rules/{rule}", {"name": "renamed"}),
        ("POST", f"/v1/rules/{rule}/pause", None),
        ("POST", f"/v1/rules/{rule}/trigger", None),
        ("POST", "/v1/rules/validate", RULE),
        ("POST", "/v1/actions", {"run_at": FUTURE, "code": SCRIPT}),
        ("POST", f"/v1/actions/{action}/cancel", None),
        ("PUT", "/v1/kv/new", {"value": 1}),
        ("DELETE", f"/v1/kv/{owned.kv_key}", None),
        ("POST", f"/v1/rules/{rule}/rollback", {"version": 1}),
        ("DELETE", f"/v1/rules/{rule}", None),
        ("PUT", "/v1/calendars/new", {"excluded": ["2099-01-01"]}),
        ("DELETE", f"/v1/calendars/{owned.calendar}", None),
        ("POST", "/v1/notification-routes", {"events": ["failed"], "channel": "webhook"}),
        ("DELETE", f"/v1/notification-routes/{owned.route_id}", None),
    ]


ADMIN_ONLY = [
    ("POST", "/v1/keys", {"role": "admin"}),
    ("GET", "/v1/keys", None),
    ("PUT", "/v1/webhook", {"url": "https://example.com/hook"}),
    ("POST", "/v1/webhook/secret", None),
    ("PATCH", "/v1/tenant", {"default_timezone": "Asia/Tokyo"}),
    ("GET", "/v1/audit", None),
]


def test_viewer_cannot_write_and_editor_cannot_administer(new_tenant, problem) -> None:
    b = new_tenant()
    owned = _own_objects(b)
    for method, path, body in _writes(owned) + ADMIN_ONLY:
        problem(b.viewer.request(method, path, json=body), 403, "forbidden")
    for method, path, body in ADMIN_ONLY:
        problem(b.editor.request(method, path, json=body), 403, "forbidden")
    problem(b.viewer.delete(f"/v1/keys/{owned.key_id}"), 403, "forbidden")
    rule = b.viewer.get(f"/v1/rules/{owned.rule['id']}").json()
    assert rule["version"] == owned.rule["version"] and rule["enabled"] is True
    assert [i["key"] for i in b.viewer.get("/v1/kv").json()["items"]] == ["b-secret"]
    assert len(b.viewer.get("/v1/rules").json()["items"]) == 1
    assert b.viewer.get(f"/v1/actions/{owned.action['id']}").json()["status"] == "pending"
    assert b.viewer.get("/v1/webhook").json()["url"] is None
    assert b.viewer.get("/v1/tenant").json()["default_timezone"] == "UTC"


def test_revoked_key_is_401_everywhere(new_tenant, server, problem) -> None:
    t = new_tenant()
    keys = t.admin.get("/v1/keys").json()["items"]
    editor_id = next(k["id"] for k in keys if k["name"] == "editor")
    assert t.admin.delete(f"/v1/keys/{editor_id}").status_code == 200
    for method, path, body in [
        ("GET", "/v1/tenant", None),
        ("GET", "/v1/rules", None),
        ("POST", "/v1/rules", RULE),
        ("PUT", "/v1/kv/x", {"value": 1}),
    ]:
        problem(t.editor.request(method, path, json=body), 401, "unauthorized")
    assert t.viewer.get("/v1/rules").json()["items"] == []


def test_tenant_key_cannot_use_operator_routes(new_tenant, problem) -> None:
    t = new_tenant()
    for method, path in [
        ("GET", "/v1/admin/tenants"),
        ("POST", f"/v1/admin/tenants/{t.id}/suspend"),
        ("GET", f"/v1/admin/tenants/{t.id}/audit"),
    ]:
        problem(t.admin.request(method, path), 401, "unauthorized")
    assert t.viewer.get("/v1/tenant").json()["status"] == "active"


def test_unauthenticated_requests_never_reach_data(
    http: httpx.Client, two_tenants, problem
) -> None:
    _, _, owned = two_tenants
    problem(http.get(f"/v1/rules/{owned.rule['id']}"), 401)
    problem(http.get("/v1/kv/b-secret"), 401)
