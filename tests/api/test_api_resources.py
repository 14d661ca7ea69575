"""The tenant-facing and operator resources that need no engine: behaviour over real HTTP."""

from __future__ import annotations

import httpx


def test_tenant_shows_quotas_usage_and_role(new_tenant, problem) -> None:
    t = new_tenant(quotas={"max_rules": 7})
    me = t.viewer.get("/v1/tenant")
    assert me.status_code == 200
    body = me.json()
    assert body["id"] == t.id and body["name"] == t.name and body["role"] == "viewer"
    assert body["quotas"]["max_rules"] == 7
    assert body["usage_today"]["runs"] == 0
    assert body["created_at"].endswith("Z") or "+" in body["created_at"]


def test_key_created_once_listed_by_prefix_and_revoked(new_tenant, http, problem) -> None:
    t = new_tenant()
    issued = t.admin.post("/v1/keys", json={"role": "editor", "name": "ci"}).json()
    secret = issued["secret"]
    assert secret.startswith(issued["prefix"])
    listed = t.admin.get("/v1/keys").json()["items"]
    assert issued["id"] in [k["id"] for k in listed]
    admin_key = next(k for k in listed if k["role"] == "admin")
    assert admin_key["last_used_at"] is not None  # it was just used to list the keys
    assert all("secret" not in k for k in listed)
    auth = {"Authorization": f"Bearer {secret}"}
    assert http.get("/v1/tenant", headers=auth).status_code == 200
    revoked = t.admin.delete(f"/v1/keys/{issued['id']}")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    problem(http.get("/v1/tenant", headers=auth), 401, "unauthorized")


def test_keys_paginate_with_cursor(new_tenant) -> None:
    t = new_tenant()  # admin + editor + viewer keys exist
    first = t.admin.get("/v1/keys", params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["next_cursor"]
    rest = t.admin.get("/v1/keys", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert len(rest["items"]) == 1 and rest["next_cursor"] is None
    ids = [k["id"] for k in first["items"] + rest["items"]]
    assert len(set(ids)) == 3


def test_kv_put_get_list_by_prefix_and_delete(new_tenant, problem) -> None:
    t = new_tenant()
    for key in ("users/1", "users/2", "config"):
        put = t.editor.put(f"/v1/kv/{key}", json={"value": {"k": key}})
        assert put.status_code == 200 and put.json()["value"] == {"k": key}
    assert t.viewer.get("/v1/kv/users/2").json()["value"] == {"k": "users/2"}
    page = t.viewer.get("/v1/kv", params={"prefix": "users/", "limit": 1}).json()
    assert [i["key"] for i in page["items"]] == ["users/1"]
    page2 = t.viewer.get("/v1/kv", params={"prefix": "users/", "cursor": page["next_cursor"]})
    assert [i["key"] for i in page2.json()["items"]] == ["users/2"]
    assert page2.json()["next_cursor"] is None
    assert t.editor.delete("/v1/kv/config").status_code == 204
    problem(t.viewer.get("/v1/kv/config"), 404, "not-found")
    problem(t.editor.delete("/v1/kv/config"), 404, "not-found")


def test_kv_value_over_64k_is_refused(new_tenant, problem) -> None:
    t = new_tenant()
    problem(t.editor.put("/v1/kv/big", json={"value": "x" * 70_000}), 422, "invalid-input")
    problem(t.viewer.get("/v1/kv/big"), 404)


def test_webhook_url_set_checked_and_secret_rotated(new_tenant, problem) -> None:
    t = new_tenant()
    before = t.viewer.get("/v1/webhook").json()
    assert before["url"] is None
    ok = t.admin.put("/v1/webhook", json={"url": "https://hooks.example.com/cadenza"})
    assert ok.status_code == 200 and ok.json()["url"] == "https://hooks.example.com/cadenza"
    for bad in ("ftp://example.com/x", "http://127.0.0.1:9/x", "http://localhost/x", "nope"):
        problem(t.admin.put("/v1/webhook", json={"url": bad}), 422, "invalid-input")
    rotated = t.admin.post("/v1/webhook/secret")
    assert rotated.status_code == 201
    secret = rotated.json()["secret"]
    after = t.viewer.get("/v1/webhook").json()
    assert secret.startswith(after["secret_hint"]) and after["secret_hint"] != before["secret_hint"]
    problem(t.editor.post("/v1/webhook/secret"), 403, "forbidden")
    assert t.admin.put("/v1/webhook", json={"url": None}).json()["url"] is None


def test_operator_manages_tenants(operator, http, problem) -> None:
    created = operator.post("/v1/admin/tenants", json={"name": "op-managed", "role": "viewer"})
    assert created.status_code == 201
    tenant_id, key = created.json()["id"], created.json()["api_key"]
    problem(operator.post("/v1/admin/tenants", json={"name": "op-managed"}), 409, "conflict")
    changed = operator.patch(
        f"/v1/admin/tenants/{tenant_id}", json={"quotas": {"max_rules": 3}, "name": "op-renamed"}
    )
    assert changed.json()["quotas"]["max_rules"] == 3 and changed.json()["name"] == "op-renamed"
    assert operator.get(f"/v1/admin/tenants/{tenant_id}").json()["name"] == "op-renamed"
    listed = operator.get("/v1/admin/tenants", params={"limit": 200}).json()["items"]
    assert tenant_id in [t["id"] for t in listed]
    auth = {"Authorization": f"Bearer {key}"}
    problem(http.get("/v1/admin/tenants", headers=auth), 401, "unauthorized")
    assert operator.delete(f"/v1/admin/tenants/{tenant_id}").status_code == 204
    problem(operator.get(f"/v1/admin/tenants/{tenant_id}"), 404, "not-found")
    problem(http.get("/v1/tenant", headers=auth), 401)


def test_suspended_tenant_reads_but_cannot_write(new_tenant, operator, problem) -> None:
    t = new_tenant()
    suspended = operator.post(f"/v1/admin/tenants/{t.id}/suspend")
    assert suspended.json()["status"] == "suspended"
    assert t.viewer.get("/v1/tenant").json()["status"] == "suspended"
    problem(t.editor.put("/v1/kv/a", json={"value": 1}), 403, "forbidden")
    assert operator.post(f"/v1/admin/tenants/{t.id}/resume").json()["status"] == "active"
    assert t.editor.put("/v1/kv/a", json={"value": 1}).status_code == 200


def test_rate_limit_answers_429_with_retry_after(new_tenant, problem) -> None:
    t = new_tenant(quotas={"requests_per_minute": 5})
    # The bucket starts full with 5 tokens; 4 went on creating the role keys and nothing else.
    answers = [t.viewer.get("/v1/tenant") for _ in range(8)]
    limited = [a for a in answers if a.status_code == 429]
    assert limited, [a.status_code for a in answers]
    body = problem(limited[0], 429, "rate-limited")
    assert int(limited[0].headers["Retry-After"]) >= 1
    assert "requests per minute" in body["detail"]
    other = new_tenant()  # the limit is per tenant: a throttled neighbour costs others nothing
    assert other.viewer.get("/v1/tenant").status_code == 200


def test_operations_endpoints(http: httpx.Client, operator: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    assert http.get("/readyz").json() == {"status": "ready"}
    assert http.get("/metrics").status_code == 401  # the operator's, not the public's
    metrics = operator.get("/metrics")
    assert metrics.status_code == 200 and "# TYPE" in metrics.text
    counted = 'cadenza_http_requests_total{method="GET",route="/healthz",status="200"}'
    assert counted in metrics.text
    assert http.get("/openapi.json").json()["info"]["title"] == "Cadenza"
    assert http.get("/docs").status_code == 200
    root = http.get("/", follow_redirects=False)
    assert root.status_code == 307 and root.headers["location"] == "/ui/"
    ui = http.get("/ui/")
    assert ui.status_code == 200 and "<html" in ui.text.lower()
