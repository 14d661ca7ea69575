"""Malformed requests: each gets a 4xx problem saying where, never a 500, and changes nothing.

A request refused before any read or write is tried against the SQLite server only; what can
reach the store (NUL characters, cursors, kv keys) against both kinds of database.
"""

from __future__ import annotations

import httpx
import pytest
from support.api_servers import SQLITE_SERVER_ONLY


def _kv_keys(client: httpx.Client) -> list[str]:
    return [item["key"] for item in client.get("/v1/kv").json()["items"]]


@SQLITE_SERVER_ONLY
def test_bad_json_names_the_position(new_tenant, problem) -> None:
    t = new_tenant()
    raw = b'{"value": [1, 2,'
    answer = t.editor.put("/v1/kv/x", content=raw, headers={"content-type": "application/json"})
    body = problem(answer, 422, "validation")
    assert body["errors"][0]["field"] == "body"
    assert body["errors"][0]["position"] == len(raw)
    assert _kv_keys(t.viewer) == []


@SQLITE_SERVER_ONLY
def test_body_that_is_not_utf8_is_invalid_json(new_tenant, problem) -> None:
    t = new_tenant()
    answer = t.editor.put(
        "/v1/kv/x", content=b"\xff\xfe{", headers={"content-type": "application/json"}
    )
    assert problem(answer, 422, "validation")["errors"][0]["field"] == "body"


@SQLITE_SERVER_ONLY
@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"schedule": 5}, "schedule", id="number-for-string"),
        pytest.param({"schedule": "FREQ=DAILY", "count": "ten"}, "count", id="string-for-int"),
        pytest.param({"schedule": "FREQ=DAILY", "count": 0}, "count", id="below-minimum"),
        pytest.param(
            {"schedule": "FREQ=DAILY", "after": "2026-01-01T09:00"},
            "after",
            id="instant-without-offset",
        ),
        pytest.param({"schedule": "FREQ=DAILY", "colour": "red"}, "colour", id="unknown-field"),
        pytest.param({}, "schedule", id="missing-field"),
        # An unknown time zone is `invalid-schedule`, like a bad schedule: test_api_zones.py.
        pytest.param({"schedule": "FREQ=DAILY", "dst_gap": "sometimes"}, "dst_gap", id="bad-enum"),
    ],
)
def test_wrong_types_and_fields_name_the_field(new_tenant, problem, body, field) -> None:
    t = new_tenant()
    answer = problem(t.viewer.post("/v1/preview", json=body), 422, "validation")
    assert field in [e["field"] for e in answer["errors"]], answer


@SQLITE_SERVER_ONLY
@pytest.mark.parametrize(
    ("schedule", "position"),
    [
        pytest.param("FREQ=DAILY;BYHOUR=25", 11, id="byhour-out-of-range"),
        pytest.param("FREQ=DAILY;COUNTX=3", 11, id="unknown-part"),
    ],
)
def test_bad_rrule_names_schedule_and_position(new_tenant, problem, schedule, position) -> None:
    t = new_tenant()
    body = problem(t.viewer.post("/v1/preview", json={"schedule": schedule}), 422)
    error = body["errors"][0]
    assert error["field"] == "schedule" and error["position"] == position
    assert error["message"] and body["type"] == "/problems/invalid-schedule"


@SQLITE_SERVER_ONLY
def test_rrule_that_never_occurs_is_refused(new_tenant, problem) -> None:
    t = new_tenant()
    never = "DTSTART:20260101T090000Z\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"
    body = problem(t.viewer.post("/v1/preview", json={"schedule": never}), 422)
    assert body["errors"][0]["field"] == "schedule"


@SQLITE_SERVER_ONLY
def test_huge_body_is_413_and_changes_nothing(new_tenant, problem) -> None:
    t = new_tenant()
    huge = b'{"value": "' + b"x" * 2_000_000 + b'"}'
    answer = t.editor.put("/v1/kv/big", content=huge, headers={"content-type": "application/json"})
    problem(answer, 413, "payload-too-large")
    assert _kv_keys(t.viewer) == []


@SQLITE_SERVER_ONLY
def test_huge_chunked_body_without_length_is_413(new_tenant, problem) -> None:
    t = new_tenant()

    def chunks():
        yield b'{"value": "'
        for _ in range(40):
            yield b"x" * 65_536
        yield b'"}'

    answer = t.editor.put(
        "/v1/kv/big", content=chunks(), headers={"content-type": "application/json"}
    )
    problem(answer, 413, "payload-too-large")
    assert _kv_keys(t.viewer) == []


@pytest.mark.parametrize(
    "path",
    ["/v1/kv", "/v1/keys", "/v1/events?after=", "/v1/admin/tenants"],
    ids=["kv", "keys", "events", "admin-tenants"],
)
@pytest.mark.parametrize(
    "cursor",
    ["!!!", "bm90LWpzb24", "eyJhZnRlciI6W119", "k_doesnotexist", "eyJhZnRlciI6ICJhXHUwMDAwIn0"],
    ids=["not-base64", "not-json", "wrong-type", "plain-text", "nul-inside"],
)
def test_bad_cursor_is_422(new_tenant, operator, problem, path, cursor) -> None:
    t = new_tenant()
    client = operator if "admin" in path else t.admin
    param = "after" if "events" in path else "cursor"
    answer = client.get(path.split("?")[0], params={param: cursor})
    assert problem(answer, 422, "invalid-cursor")["errors"][0]["field"] == "cursor"


@SQLITE_SERVER_ONLY
@pytest.mark.parametrize("limit", ["0", "-1", "100000", "ten"])
def test_bad_limit_is_422(new_tenant, problem, limit) -> None:
    t = new_tenant()
    body = problem(t.viewer.get("/v1/kv", params={"limit": limit}), 422, "validation")
    assert body["errors"][0]["field"] == "limit" and body["errors"][0]["in"] == "query"


@SQLITE_SERVER_ONLY
@pytest.mark.parametrize(
    "header",
    [
        None,
        "cdz_no_scheme",
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer cdz_wrong",
        "Bearer " + "x" * 5000,
        "Bearer cdz_\u00e9\u00e9",
    ],
    ids=["missing", "no-scheme", "basic", "scheme-only", "unknown", "huge", "non-ascii"],
)
def test_bad_authorization_is_401_problem(http, problem, header) -> None:
    headers = {} if header is None else {"Authorization": header.encode("utf-8")}
    answer = http.get("/v1/tenant", headers=headers)
    problem(answer, 401, "unauthorized")
    assert answer.headers["WWW-Authenticate"] == "Bearer"


@SQLITE_SERVER_ONLY
def test_wrong_operator_token_is_401(http, problem) -> None:
    problem(http.get("/v1/admin/tenants"), 401, "unauthorized")
    bad = {"Authorization": "Bearer not-the-token"}
    problem(http.get("/v1/admin/tenants", headers=bad), 401, "unauthorized")


def test_kv_key_that_is_not_printable_is_422(new_tenant, problem) -> None:
    t = new_tenant()
    problem(t.editor.put("/v1/kv/a%00b", json={"value": 1}), 422)
    assert _kv_keys(t.viewer) == []


@SQLITE_SERVER_ONLY
def test_unknown_route_and_method_are_problems(http, problem) -> None:
    problem(http.get("/v1/nothing-here"), 404, "not-found")
    answer = http.request("TRACE", "/healthz")
    problem(answer, 405, "method-not-allowed")
    assert "GET" in answer.headers["Allow"]


@SQLITE_SERVER_ONLY
def test_operator_quota_out_of_range_is_422(operator, problem) -> None:
    answer = operator.post(
        "/v1/admin/tenants", json={"name": "bad-quota", "quotas": {"requests_per_minute": 0}}
    )
    body = problem(answer, 422, "validation")
    assert body["errors"][0]["field"] == "quotas.requests_per_minute"
    names = [
        t["name"] for t in operator.get("/v1/admin/tenants", params={"limit": 200}).json()["items"]
    ]
    assert "bad-quota" not in names


NUL_REQUESTS = [
    pytest.param("editor", "POST", "/v1/rules", {"json": {"name": "a\x00b"}}, "name",
                 id="rule-name"),
    pytest.param(
        "editor", "POST", "/v1/rules", {"json": {"description": "\x00"}}, "description",
        id="rule-description",
    ),
    pytest.param("viewer", "GET", "/v1/rules", {"params": {"search": "a\x00"}}, "search",
                 id="search-query"),
    pytest.param("viewer", "GET", "/v1/kv", {"params": {"prefix": "\x00"}}, "prefix",
                 id="prefix-query"),
    pytest.param("viewer", "GET", "/v1/rules/r_a%00b", {}, "path", id="rule-id-path"),
    pytest.param("admin", "PUT", "/v1/webhook", {"json": {"url": "https://example.com/\x00"}},
                 "url", id="webhook-url"),
    pytest.param(
        "editor", "POST", "/v1/actions",
        {"json": {"run_at": "2099-01-01T00:00:00Z", "key": "a\x00", "code": "x = 1"}}, "key",
        id="action-key",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("role", "method", "path", "request_args", "field"), NUL_REQUESTS)
def test_nul_characters_are_422_naming_the_field(
    new_tenant, problem, role, method, path, request_args, field
) -> None:
    """PostgreSQL cannot store NUL in text: refused at the door on both databases, never a 500."""
    t = new_tenant()
    client = getattr(t, role)
    body = request_args.get("json")
    if body is not None and path == "/v1/rules":
        body = {"name": "r", "schedule": "FREQ=DAILY", "code": "x = 1", **body}
    answer = client.request(method, path, json=body, params=request_args.get("params"))
    assert field in [e["field"] for e in problem(answer, 422)["errors"]]
    assert t.viewer.get("/v1/rules").json()["items"] == []


@pytest.mark.parametrize(
    "cursor",
    ["!!!", "YQBi", "__4", "/v1/rules"],
    ids=["not-base64", "nul-inside", "not-utf8", "path"],
)
@pytest.mark.parametrize("path", ["/v1/rules", "/v1/actions", "/v1/runs"])
def test_bad_engine_list_cursor_is_422(new_tenant, problem, path, cursor) -> None:
    t = new_tenant()
    body = problem(t.viewer.get(path, params={"cursor": cursor}), 422, "invalid-cursor")
    assert body["errors"][0]["field"] == "cursor"


@pytest.mark.parametrize("path", ["/v1/rules", "/v1/actions", "/v1/runs"])
def test_forged_well_formed_cursor_is_never_a_500(new_tenant, path) -> None:
    """A cursor of the right form but made up (here a 37-digit number) is 200 or 422."""
    t = new_tenant()
    forged = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODk"
    answer = t.viewer.get(path, params={"cursor": forged})
    assert answer.status_code in (200, 422), answer.text


@SQLITE_SERVER_ONLY
def test_body_without_json_content_type_says_so(new_tenant, problem) -> None:
    """What `curl -d '{...}'` sends when the Content-Type header is forgotten."""
    t = new_tenant()
    form = {"content-type": "application/x-www-form-urlencoded"}
    answer = t.viewer.post("/v1/preview", content=b'{"schedule": "FREQ=DAILY"}', headers=form)
    body = problem(answer, 422, "validation")
    assert "Content-Type: application/json" in body["detail"]
