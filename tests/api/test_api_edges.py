"""Edge inputs that once reached the database or the clock: never a 500, errors are problems.

NaN/Infinity JSON tokens, instants at the ends of the calendar, deep nesting, huge integers and
unpaired surrogates. Each answer is either accepted or a 4xx problem; none is a server error.
"""

from __future__ import annotations

import pytest

CASES: dict[str, tuple[str, str, str, str | None]] = {
    "params-nan": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","params":{"x":NaN}}',
    ),
    "backoff-nan": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","backoff_s":NaN}',
    ),
    "backoff-inf": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","backoff_s":Infinity}',
    ),
    "action-params-nan": (
        "editor",
        "POST",
        "/v1/actions",
        '{"run_at":"2099-01-01T00:00:00Z","code":"x = 1","params":{"x":NaN}}',
    ),
    "kv-nan": ("editor", "PUT", "/v1/kv/a", '{"value":NaN}'),
    "run-at-max": (
        "editor",
        "POST",
        "/v1/actions",
        '{"run_at":"9999-12-31T23:59:59-12:00","code":"x = 1"}',
    ),
    "run-at-min": (
        "editor",
        "POST",
        "/v1/actions",
        '{"run_at":"0001-01-01T00:00:00+14:00","code":"x = 1"}',
    ),
    "preview-after-max": (
        "viewer",
        "POST",
        "/v1/preview",
        '{"schedule":"FREQ=DAILY","after":"9999-12-31T00:00:00Z"}',
    ),
    "preview-after-min": (
        "viewer",
        "POST",
        "/v1/preview",
        '{"schedule":"FREQ=DAILY","after":"0001-01-01T00:00:00+14:00"}',
    ),
    "rule-start-max": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","start_at":"9999-12-31T00:00:00Z"}',
    ),
    "rule-end-min": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","end_at":"0001-01-02T00:00:00Z"}',
    ),
    "dtstart-9999": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"DTSTART:99991231T000000Z\\nRRULE:FREQ=DAILY","code":"x = 1"}',
    ),
    "since-max": ("viewer", "GET", "/v1/runs?since=9999-12-31T23:59:59-12:00", None),
    "deep-params": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","params":'
        + '{"a":' * 3000
        + "1"
        + "}" * 3000
        + "}",
    ),
    "deep-kv": ("editor", "PUT", "/v1/kv/a", '{"value":' + "[" * 5000 + "]" * 5000 + "}"),
    "big-int-kv": ("editor", "PUT", "/v1/kv/a", '{"value":' + "9" * 5000 + "}"),
    "big-int-params": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","params":{"x":' + "9" * 30 + "}}",
    ),
    "unicode-surrogate": ("editor", "PUT", "/v1/kv/a", '{"value":"\\ud800"}'),
    "surrogate-name": (
        "editor",
        "POST",
        "/v1/rules",
        '{"name":"\\ud800","schedule":"FREQ=DAILY","code":"x = 1"}',
    ),
    "timeline-extreme": (
        "viewer",
        "GET",
        "/v1/rules/r_x/timeline?from=0001-01-01T00:00:00Z&to=0001-06-01T00:00:00Z",
        None,
    ),
}

CASES.update(
    {
        "timeline-from-9999": (
            "viewer",
            "GET",
            "/v1/rules/r_x/timeline?from=9999-12-01T00:00:00Z",
            None,
        ),
        "timeline-to-year1": (
            "viewer",
            "GET",
            "/v1/rules/r_x/timeline?to=0001-01-03T00:00:00Z",
            None,
        ),
        "timeline-naive": ("viewer", "GET", "/v1/rules/r_x/timeline?to=2026-01-03T00:00:00", None),
        "backfill-extreme": (
            "editor",
            "POST",
            "/v1/rules/r_x/backfill",
            '{"start":"0001-01-01T00:00:00Z","end":"9999-12-31T00:00:00Z"}',
        ),
        "surrogate-params": (
            "editor",
            "POST",
            "/v1/rules",
            '{"name":"r","schedule":"FREQ=DAILY","code":"x = 1","params":{"\\udc00":1}}',
        ),
    }
)


@pytest.mark.parametrize("case", list(CASES))
def test_edge_input_is_never_a_server_error(new_tenant, case: str) -> None:
    t = new_tenant()
    role, method, path, body = CASES[case]
    headers = {"content-type": "application/json"} if body else {}
    answer = getattr(t, role).request(method, path, content=body, headers=headers)
    assert answer.status_code < 500, answer.text[:300]
    if answer.status_code >= 400:
        assert answer.headers["content-type"] == "application/problem+json"
