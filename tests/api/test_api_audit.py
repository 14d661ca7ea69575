"""The audit log through real HTTP: one row per committed change, none for a refused one.

Each row names the key (id and prefix) or the operator, the route template, the object and the
request id the response carried; it holds digests, never values; only admins and the operator
read it, and no route writes it.
"""

from __future__ import annotations

import re

from support.audit import RULE, audit_rows

HEX64 = re.compile(r"[0-9a-f]{64}")


def test_each_change_has_its_row_naming_key_route_object_and_request(new_tenant):
    tenant = new_tenant()
    created = tenant.editor.post("/v1/rules", json=RULE)
    rule_id = created.json()["id"]
    paused = tenant.editor.post(f"/v1/rules/{rule_id}/pause")
    data = tenant.editor.put("/v1/kv/counter", json={"value": 1})
    editor_key = next(
        k for k in tenant.admin.get("/v1/keys").json()["items"] if k["role"] == "editor"
    )

    rows = audit_rows(tenant.admin, actor=editor_key["id"])

    assert [(r["method"], r["route"], r["object_kind"], r["object_id"]) for r in rows] == [
        ("POST", "/v1/rules", "rule", rule_id),
        ("POST", "/v1/rules/{rule_id}/pause", "rule", rule_id),
        ("PUT", "/v1/kv/{key}", "data", "counter"),
    ]
    responses = (created, paused, data)
    assert [r["request_id"] for r in rows] == [x.headers["x-request-id"] for x in responses]
    assert {r["actor_prefix"] for r in rows} == {editor_key["prefix"]}
    assert {r["tenant_id"] for r in rows} == {tenant.id}


def test_digests_chain_per_object_and_never_hold_a_value(new_tenant):
    tenant = new_tenant()
    secret_value = "hunter2-" + "x" * 20
    for value in (secret_value, secret_value + "-rotated"):
        answer = tenant.admin.put("/v1/secrets/smtp", json={"value": value})
        assert answer.status_code == 200, answer.text

    rows = audit_rows(tenant.admin, object_kind="secret", object_id="smtp")

    assert len(rows) == 2
    assert rows[0]["before_digest"] is None
    assert rows[1]["before_digest"] == rows[0]["after_digest"]
    assert all(HEX64.fullmatch(r["after_digest"]) for r in rows)
    assert rows[0]["after_digest"] != rows[1]["after_digest"]
    assert "hunter2" not in tenant.admin.get("/v1/audit").text


def test_a_refused_change_leaves_no_row(new_tenant, problem):
    tenant = new_tenant(quotas={"max_rules": 1})
    rule_id = tenant.editor.post("/v1/rules", json=RULE).json()["id"]
    tenant.editor.patch(f"/v1/rules/{rule_id}", json={"name": "renamed"})
    before = audit_rows(tenant.admin)

    problem(
        tenant.editor.patch(
            f"/v1/rules/{rule_id}", json={"name": "x"}, headers={"If-Match": '"1"'}
        ),
        412,
    )
    problem(tenant.editor.post("/v1/rules", json=RULE), 422, "quota-exceeded")
    problem(tenant.editor.patch(f"/v1/rules/{rule_id}", json={"schedule": "FREQ=NEVER"}), 422)
    problem(tenant.viewer.put("/v1/kv/x", json={"value": 1}), 403)
    key_id = tenant.admin.post("/v1/keys", json={"role": "viewer"}).json()["id"]
    assert tenant.admin.delete(f"/v1/keys/{key_id}").status_code == 200
    problem(tenant.admin.delete(f"/v1/keys/{key_id}"), 409)

    after = audit_rows(tenant.admin)
    assert after[: len(before)] == before
    assert [(r["method"], r["object_id"]) for r in after[len(before) :]] == [
        ("POST", key_id),
        ("DELETE", key_id),
    ]


def test_only_admins_and_the_operator_read_the_log(new_tenant, operator, problem):
    tenant = new_tenant()
    changed = operator.patch(f"/v1/admin/tenants/{tenant.id}", json={"quotas": {"max_rules": 7}})
    assert changed.status_code == 200, changed.text
    problem(tenant.editor.get("/v1/audit"), 403)
    problem(tenant.viewer.get("/v1/audit"), 403)
    problem(operator.get("/v1/audit"), 401)

    rows = operator.get(f"/v1/admin/tenants/{tenant.id}/audit", params={"actor": "operator"})

    assert rows.status_code == 200, rows.text
    kinds = [(r["method"], r["object_kind"], r["object_id"]) for r in rows.json()["items"]]
    assert kinds == [("POST", "tenant", tenant.id), ("PATCH", "tenant", tenant.id)]
    assert [r["actor_prefix"] for r in rows.json()["items"]] == [None, None]
    problem(operator.get("/v1/admin/tenants/t_nosuch/audit"), 404)


def test_no_route_writes_the_log(new_tenant):
    tenant = new_tenant()
    tenant.admin.put("/v1/kv/a", json={"value": 1})
    row_id = audit_rows(tenant.admin)[-1]["id"]
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        for path in ("/v1/audit", f"/v1/audit/{row_id}"):
            answer = tenant.admin.request(method, path, json={})
            assert answer.status_code in (404, 405), (method, path, answer.status_code)
    assert audit_rows(tenant.admin)[-1]["id"] == row_id


def test_filters_by_time_and_refuse_bad_values(new_tenant, problem):
    tenant = new_tenant()
    tenant.admin.put("/v1/kv/a", json={"value": 1})
    first = audit_rows(tenant.admin)[-1]
    tenant.admin.put("/v1/kv/b", json={"value": 2})

    since = audit_rows(tenant.admin, since=first["at"])
    until = audit_rows(tenant.admin, until=first["at"])

    assert first["id"] in {r["id"] for r in since}
    assert first["id"] not in {r["id"] for r in until}
    assert problem(tenant.admin.get("/v1/audit", params={"since": "yesterday"}), 422)
    body = problem(tenant.admin.get("/v1/audit", params={"object_kind": "Rule!"}), 422)
    assert "object_kind" in str(body)
    problem(tenant.admin.get("/v1/audit", params={"cursor": "!!"}), 422)
