"""Actions, runs, events, data, keys, webhook, tenant and the operator's tenants through the
blocking client, against a live server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cadenza_client import (
    ActionStatus,
    Client,
    Forbidden,
    InvalidInput,
    InvalidState,
    NotFound,
    Outcome,
    QuotaChanges,
    Role,
    TenantStatus,
    Unauthorized,
)
from support.client_tenants import Tenant

EMIT = 'def main(ctx):\n    ctx.emit("done", {"n": 1})\n    return "ran"\n'


def test_a_keyed_submission_is_one_action_and_cancel_then_retry_make_a_new_one(
    editor: Client,
) -> None:
    later = datetime.now(UTC) + timedelta(days=1)
    first = editor.actions.submit(later, code=EMIT, key="invoice-42")
    again = editor.actions.submit(later + timedelta(hours=1), code=EMIT, key="invoice-42")
    assert again.id == first.id and again.due_at == later + timedelta(hours=1)
    cancelled = editor.actions.cancel(first)
    assert cancelled.status is ActionStatus.CANCELLED
    with pytest.raises(InvalidState) as refused:
        editor.actions.cancel(first)
    assert refused.value.status == 409
    retried = editor.actions.retry(first)
    assert retried.id != first.id
    listed = [a.id for a in editor.actions.list(status=ActionStatus.CANCELLED)]
    assert listed == [first.id]


def test_a_run_its_events_and_the_feed_cursor(
    editor: Client, eventually: Callable[..., Any]
) -> None:
    action = editor.actions.submit(datetime.now(UTC), code=EMIT)
    summary = eventually(lambda: next(iter(editor.runs.list()), None))
    assert summary.action_id == action.id and summary.outcome is Outcome.OK
    run = editor.runs.get(summary)
    assert (run.id, run.result) == (summary.id, "ran")
    assert editor.runs.page(outcome=Outcome.ERROR).items == ()
    events = eventually(lambda: list(editor.events.list()))
    assert [(e.type, e.payload, e.run_id) for e in events] == [("done", {"n": 1}, run.id)]
    feed = editor.events.read()
    assert editor.events.read(after=feed.next_cursor).items == ()


@pytest.mark.parametrize(
    "key",
    [
        "users/42",  # a slash stays a slash
        "a b?c#d%e&f=g",  # characters with a meaning in URLs
        "x/../y",  # a dot segment a URL would collapse
        "./here",
        "ü/日本",  # non-ASCII
    ],
)
def test_data_keys_reach_the_server_verbatim(editor: Client, key: str) -> None:
    stored = editor.kv.put(key, {"value": [1, None, "two"]})
    assert (stored.key, stored.value) == (key, {"value": [1, None, "two"]})
    assert editor.kv.get(key).value == {"value": [1, None, "two"]}
    assert [item.key for item in editor.kv.list()] == [key]
    editor.kv.delete(key)
    with pytest.raises(NotFound):
        editor.kv.delete(key)


def test_data_lists_by_prefix_across_pages(editor: Client) -> None:
    for n in range(5):
        editor.kv.put(f"users/{n}", n)
    editor.kv.put("other", 0)
    assert [i.value for i in editor.kv.list(prefix="users/", limit=2)] == [0, 1, 2, 3, 4]


def test_keys_are_created_listed_and_revoked(
    tenant: Tenant, connect: Callable[..., Client]
) -> None:
    admin = connect(tenant.keys[Role.ADMIN])
    made = admin.keys.create(name="dashboard")
    assert made.role is Role.VIEWER and made.secret.startswith("cdz_")
    assert connect(made.secret).tenant.get().role is Role.VIEWER
    assert made.id in [k.id for k in admin.keys.list(limit=1)]
    assert admin.keys.revoke(made).revoked_at is not None
    with pytest.raises(Unauthorized):
        connect(made.secret).tenant.get()


def test_the_webhook_is_set_refused_and_its_secret_rotated(
    tenant: Tenant, connect: Callable[..., Client]
) -> None:
    admin = connect(tenant.keys[Role.ADMIN])
    with pytest.raises(InvalidInput) as refused:
        admin.webhook.set("http://127.0.0.1/private")
    assert refused.value.status == 422
    assert admin.webhook.set("https://example.com/hook").url == "https://example.com/hook"
    secret = admin.webhook.rotate_secret().secret
    assert secret.startswith(admin.webhook.get().secret_hint)
    assert admin.webhook.set(None).url is None


def test_the_tenant_reads_itself_and_the_operator_manages_tenants(
    operator: Client, tenant: Tenant, connect: Callable[..., Client]
) -> None:
    editor = connect(tenant.keys[Role.EDITOR])
    own = editor.tenant.get()
    assert (own.id, own.role, own.status) == (tenant.id, Role.EDITOR, TenantStatus.ACTIVE)
    changed = operator.tenants.update(tenant.id, quotas=QuotaChanges(max_rules=7))
    assert changed.quotas.max_rules == 7 == operator.tenants.get(tenant.id).quotas.max_rules
    operator.tenants.suspend(tenant.id)
    with pytest.raises(Forbidden):
        editor.kv.put("k", 1)
    assert operator.tenants.resume(tenant.id).status is TenantStatus.ACTIVE
    assert tenant.id in {t.id for t in operator.tenants.list(limit=3)}
    operator.tenants.delete(tenant.id)
    with pytest.raises(NotFound):
        operator.tenants.get(tenant.id)
    with pytest.raises(Unauthorized):
        editor.tenant.get()


def test_a_tenant_key_is_refused_by_the_operator_routes(editor: Client) -> None:
    with pytest.raises(Unauthorized) as refused:
        editor.tenants.page()
    assert refused.value.type == "/problems/unauthorized"
