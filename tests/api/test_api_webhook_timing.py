"""No event is lost to a stale cache: whether an event goes to the tenant's webhook is decided
when it is delivered, so every event recorded after the webhook was set reaches it, including
the one in the same second, whichever node runs the tenant (one node, and two on PostgreSQL)."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from support.operator import ADMIN_TOKEN
from support.processes import Server, running_server
from support.threaded_server import serving

EMITTER = "def main(ctx):\n    ctx.emit('tick', {'at': ctx.scheduled_at})\n"
RULE = {"name": "tick", "schedule": "every 1s", "timezone": "UTC", "code": EMITTER}
ENV = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN, "CADENZA_ALLOW_PRIVATE_WEBHOOKS": "true"}
AFTER_WEBHOOK = 5
#: A rule every second, and room for the test's polling.
QUOTAS = {"min_interval_s": 1, "requests_per_minute": 100_000}


class Receiver:
    """A real HTTP server recording each delivery (event id, signature header, body)."""

    def __init__(self) -> None:
        self.received: dict[int, tuple[str, bytes]] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                event_id = int(self.headers["X-Cadenza-Event-Id"])
                receiver.received[event_id] = (self.headers["X-Cadenza-Signature"], body)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    with serving(r.server):
        yield r


def _wait(probe, timeout_s: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout_s} s")


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
    created = httpx.post(
        f"{first.base_url}/v1/admin/tenants",
        json={"name": f"t{time.monotonic_ns()}", "quotas": QUOTAS},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=30,
    ).json()
    headers = {"Authorization": f"Bearer {created['api_key']}"}
    with httpx.Client(base_url=first.base_url, headers=headers, timeout=30) as tenant:
        assert tenant.post("/v1/rules", json=RULE).status_code == 201
        _wait(lambda: len(_events(tenant)) >= 2)
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

        after = _wait(delivered_after)
        assert _runs_on(tenant) == running  # the same node ran the tenant throughout
    assert {e["id"] for e in after} <= set(receiver.received)
    for event in after:
        assert _signed_by(secret, *receiver.received[event["id"]])


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
        created = httpx.post(
            f"{server.base_url}/v1/admin/tenants",
            json={"name": "roller", "quotas": QUOTAS},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            timeout=30,
        ).json()
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
    events = _wait(lambda: [e for e in _events(tenant) if e["action_id"] == action["id"]])
    return _wait(lambda: receiver.received.get(events[0]["id"]))
