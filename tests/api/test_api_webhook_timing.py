"""No event is lost to a stale cache: whether an event goes to the tenant's webhook is decided
when it is delivered, so every event recorded after the webhook was set reaches it, including
the one in the same second, whichever node runs the tenant (one node, and two on PostgreSQL)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime

import httpx
import pytest
from support.operator import ADMIN_TOKEN, BUSY_QUOTAS, create_tenant_over_api
from support.polling import until
from support.processes import Server, running_server
from support.receivers import Receiver
from support.threaded_server import serving

EMITTER = "def main(ctx):\n    ctx.emit('tick', {'at': ctx.scheduled_at})\n"
RULE = {"name": "tick", "schedule": "every 1s", "timezone": "UTC", "code": EMITTER}
ENV = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN, "CADENZA_ALLOW_PRIVATE_WEBHOOKS": "true"}
AFTER_WEBHOOK = 5

#: How long a test waits for the engine (generous: the machine is shared).
WAIT_S = 60.0


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    with serving(r.server):
        yield r


def _events(client: httpx.Client) -> list[dict]:
    answer = client.get("/v1/events", params={"limit": 200})
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def _signed_by(secret: str, header: str, body: bytes) -> bool:
    timestamp, signatures = _signatures(header)
    return any(_verifies(secret, timestamp, signature, body) for signature in signatures)


def _runs_on(client: httpx.Client) -> set[str]:
    return {run["node"] for run in client.get("/v1/runs").json()["items"]}


def _webhook_set_then_events_delivered(nodes: dict[str, Server], receiver: Receiver) -> None:
    """Make a tenant whose rule emits every second; once its loop has run (and read its
    profile), set its webhook through a node that does not run it, if there is one; every
    event after that must be delivered, signed with the tenant's secret."""
    first = next(iter(nodes.values()))
    created = create_tenant_over_api(first.base_url, BUSY_QUOTAS)
    headers = {"Authorization": f"Bearer {created['api_key']}"}
    with httpx.Client(base_url=first.base_url, headers=headers, timeout=30) as tenant:
        assert tenant.post("/v1/rules", json=RULE).status_code == 201
        until(lambda: len(_events(tenant)) >= 2, timeout_s=WAIT_S)
        running = _runs_on(tenant)
        other = next((s for name, s in nodes.items() if name not in running), first)
    with httpx.Client(base_url=other.base_url, headers=headers, timeout=30) as tenant:
        secret = tenant.post("/v1/webhook/secret", json={"overlap_s": 0}).json()["secret"]
        assert tenant.put("/v1/webhook", json={"url": receiver.url}).status_code == 200
        boundary = max(e["id"] for e in _events(tenant))

        def delivered_after() -> list[dict]:
            after = [e for e in _events(tenant) if e["id"] > boundary]
            done = len(after) >= AFTER_WEBHOOK
            return after if done and all(e["delivery_status"] == "delivered" for e in after) else []

        after = until(delivered_after, timeout_s=WAIT_S)
        assert _runs_on(tenant) == running  # the same node ran the tenant throughout
    assert {e["id"] for e in after} <= set(receiver.by_event_id())
    for event in after:
        assert _signed_by(secret, *receiver.by_event_id()[event["id"]])


def test_event_after_webhook_is_set_is_delivered_on_one_node(
    database_url: str, receiver: Receiver
) -> None:
    with running_server(database_url, "--no-demo", env=ENV | {"CADENZA_NODE_NAME": "a"}) as a:
        _webhook_set_then_events_delivered({"a": a}, receiver)


@pytest.mark.postgres
def test_event_after_webhook_is_set_is_delivered_across_two_nodes(
    pg_cluster, receiver: Receiver
) -> None:
    url = pg_cluster.url(pg_cluster.create_database(template="cadenza_template"))
    with ExitStack() as stack:
        nodes = {
            name: stack.enter_context(
                running_server(url, "--no-demo", env=ENV | {"CADENZA_NODE_NAME": name})
            )
            for name in ("a", "b")
        }
        _webhook_set_then_events_delivered(nodes, receiver)


def _signatures(header: str) -> tuple[str, list[str]]:
    parts = [part.split("=", 1) for part in header.split(",")]
    return dict(parts)["t"], [value for name, value in parts if name == "v1"]


def _verifies(secret: str, timestamp: str, signature: str, body: bytes) -> bool:
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(signature, expected.hexdigest())


def test_rotation_with_overlap_signs_with_both_secrets_then_the_new_one_only(
    database_url: str, receiver: Receiver
) -> None:
    with running_server(database_url, "--no-demo", env=ENV) as server:
        created = create_tenant_over_api(server.base_url, BUSY_QUOTAS)
        headers = {"Authorization": f"Bearer {created['api_key']}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as tenant:
            old = tenant.post("/v1/webhook/secret", json={"overlap_s": 0}).json()["secret"]
            assert tenant.put("/v1/webhook", json={"url": receiver.url}).status_code == 200
            rolled = tenant.post("/v1/webhook/secret", json={"overlap_s": 3600}).json()
            new = rolled["secret"]
            assert rolled["previous_secret_retires_at"] is not None
            shown = tenant.get("/v1/webhook").json()
            assert new.startswith(shown["secret_hint"]) and old.startswith(
                shown["previous_secret_hint"]
            )
            during = _delivered_once(tenant, receiver)
            latest = tenant.post("/v1/webhook/secret", json={"overlap_s": 0}).json()
            assert latest["previous_secret_retires_at"] is None
            after = _delivered_once(tenant, receiver)
    timestamp, signatures = _signatures(during[0])
    assert len(signatures) == 2
    assert _verifies(new, timestamp, signatures[0], during[1])
    assert _verifies(old, timestamp, signatures[1], during[1])
    timestamp, signatures = _signatures(after[0])
    assert len(signatures) == 1 and _verifies(latest["secret"], timestamp, signatures[0], after[1])
    assert not _verifies(new, timestamp, signatures[0], after[1])


def _delivered_once(tenant: httpx.Client, receiver: Receiver) -> tuple[str, bytes]:
    """Run a one-off that emits one event; what the receiver got for it."""
    now = datetime.now(UTC).isoformat()
    body = {"run_at": now, "code": EMITTER.replace("ctx.scheduled_at", "1")}
    action = tenant.post("/v1/actions", json=body).json()
    events = until(
        lambda: [e for e in _events(tenant) if e["action_id"] == action["id"]], timeout_s=WAIT_S
    )
    return until(lambda: receiver.by_event_id().get(events[0]["id"]), timeout_s=WAIT_S)
