"""A property over generated sequences of API calls: the audit rows are the successful changes.

Whatever mix of changes succeed and fail (unknown ids, bad schedules, revoking twice, deleting
what is gone), the log holds exactly one request's worth of rows per change that answered 2xx,
in order, naming its object, and nothing for any change that was refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.audit import RULE, audit_rows

BAD_RULE = {**RULE, "schedule": "FREQ=NEVER"}


@dataclass
class World:
    """What the sequence made so far, to aim later calls at it (or at what is gone)."""

    rules: list[str] = field(default_factory=lambda: ["r_missing"])
    keys: list[str] = field(default_factory=lambda: ["k_missing"])


def _rule_call(op: str, pick: int, world: World) -> tuple[str, str, Any, str, str]:
    rule = world.rules[pick % len(world.rules)]
    calls = {
        "pause": ("POST", f"/v1/rules/{rule}/pause", None),
        "resume": ("POST", f"/v1/rules/{rule}/resume", None),
        "rename": ("PATCH", f"/v1/rules/{rule}", {"name": f"renamed-{pick}"}),
        "delete_rule": ("DELETE", f"/v1/rules/{rule}", None),
    }
    method, path, body = calls[op]
    return method, path, body, "rule", rule


def _call(op: str, pick: int, world: World) -> tuple[str, str, Any, str, str | None]:
    """(method, path, body, object kind, object id or None when the answer names it)."""
    key = f"item-{pick % 3}"
    if op == "put_data":
        return "PUT", f"/v1/kv/{key}", {"value": pick}, "data", key
    if op == "delete_data":
        return "DELETE", f"/v1/kv/{key}", None, "data", key
    if op in ("create_rule", "create_bad_rule"):
        return "POST", "/v1/rules", RULE if op == "create_rule" else BAD_RULE, "rule", None
    if op == "create_key":
        return "POST", "/v1/keys", {"role": "viewer"}, "key", None
    if op == "revoke_key":
        key_id = world.keys[pick % len(world.keys)]
        return "DELETE", f"/v1/keys/{key_id}", None, "key", key_id
    return _rule_call(op, pick, world)


def _remember(op: str, answer: httpx.Response, world: World) -> str:
    made = answer.json()["id"]
    (world.rules if op == "create_rule" else world.keys).append(made)
    return str(made)


OPS = st.sampled_from(
    [
        "put_data",
        "delete_data",
        "create_rule",
        "create_bad_rule",
        "pause",
        "resume",
        "rename",
        "delete_rule",
        "create_key",
        "revoke_key",
    ]
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(st.tuples(OPS, st.integers(0, 5)), min_size=1, max_size=7))
def test_audit_rows_equal_the_successful_changes(new_tenant, steps):
    tenant, world = new_tenant(), World()
    already = len(audit_rows(tenant.admin))
    expected: list[tuple[str, str, str, str]] = []
    for op, pick in steps:
        method, path, body, kind, object_id = _call(op, pick, world)
        answer = tenant.admin.request(method, path, json=body)
        assert answer.status_code < 500, answer.text
        if answer.is_success:
            object_id = object_id or _remember(op, answer, world)
            expected.append((answer.headers["x-request-id"], method, kind, object_id))

    rows = audit_rows(tenant.admin)[already:]
    by_request = {
        r["request_id"]: (r["request_id"], r["method"], r["object_kind"], r["object_id"])
        for r in rows
    }
    assert list(by_request.values()) == expected
