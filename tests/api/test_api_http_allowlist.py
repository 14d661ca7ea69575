"""`/v1/http-allowlist` through the real server: admins set origins within the operator's
policy (this server allows https only), anyone of the tenant reads them, bad entries change
nothing, and tenants do not see each other's lists."""

from __future__ import annotations


def test_an_admin_sets_origins_normalised_within_the_operators_schemes(new_tenant, problem) -> None:
    t, other = new_tenant(), new_tenant()
    assert t.viewer.get("/v1/http-allowlist").json() == {"entries": [], "schemes": ["https"]}
    entries = ["https://API.frankfurter.app", "https://*.slack.com:443/", "https://h.example:8443"]
    put = t.admin.put("/v1/http-allowlist", json={"entries": entries})
    assert put.status_code == 200, put.text
    expected = [
        "https://*.slack.com:443",
        "https://api.frankfurter.app:443",
        "https://h.example:8443",
    ]
    assert put.json()["entries"] == expected
    assert t.viewer.get("/v1/http-allowlist").json()["entries"] == expected
    assert other.viewer.get("/v1/http-allowlist").json()["entries"] == []
    for bad in (["http://api.example.com"], ["https://x.com/path"], ["ftp://x.com"], ["x" * 300]):
        problem(t.admin.put("/v1/http-allowlist", json={"entries": bad}), 422)
    problem(t.admin.put("/v1/http-allowlist", json={"entries": ["https://a.b"] * 51}), 422)
    problem(t.editor.put("/v1/http-allowlist", json={"entries": []}), 403)
    assert t.viewer.get("/v1/http-allowlist").json()["entries"] == expected


def test_a_script_may_not_call_an_origin_off_its_list(new_tenant) -> None:
    t = new_tenant()
    code = (
        "def main(ctx):\n    try:\n        ctx.http.request('GET', 'https://example.com/')\n"
        "    except HostError as exc:\n        return str(exc)\n"
    )
    body = t.editor.post("/v1/rules/test-run", json={"code": code}).json()
    assert body["status"] == "ok" and "allow-list" in body["result"]
