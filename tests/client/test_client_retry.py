"""When the client repeats a request: after a 429, waiting its Retry-After, and after
connection failures for idempotent calls only. A real local proxy in front of the live server
drops connections or answers 429 where a test needs one at a given request; the live server's
own rate limit shows its Retry-After read and obeyed."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from cadenza_client import (
    AsyncClient,
    Client,
    NewRule,
    QuotaChanges,
    RateLimited,
    RetryPolicy,
    Role,
    ServerError,
    TransportFailed,
)
from support.client_tenants import Tenant
from support.ports import free_port
from support.processes import Server
from support.threaded_server import serving

SCRIPT = "def main(ctx):\n    return 1\n"
QUICK = RetryPolicy(backoff_s=0.01, backoff_max_s=0.02)
TOO_MANY = {"type": "/problems/rate-limited", "title": "Too many", "status": 429, "detail": "."}
TOO_MANY_HEADERS = {"content-type": "application/problem+json", "retry-after": "1"}
FORWARDED = ("authorization", "content-type", "if-match")
RETURNED = ("content-type", "etag", "retry-after", "location")


class FlakyProxy(ThreadingHTTPServer):
    """Forwards requests to `upstream`, except that the first ones follow `plan`: "drop"
    closes the connection without an answer, "bad-gateway" answers an HTML 502,
    "too-many" a 429 problem asking to retry after 1 s."""

    daemon_threads = True

    def __init__(self, upstream: str, plan: list[str]) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream = upstream
        self.plan = plan
        self.seen: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FlakyProxy

    def _any(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.seen.append((self.command, self.path))
        step = self.server.plan.pop(0) if self.server.plan else "forward"
        if step == "drop":
            self.close_connection = True
            return
        if step == "bad-gateway":
            self._reply(502, {"content-type": "text/html"}, b"<html>bad gateway</html>")
            return
        if step == "too-many":
            self._reply(429, TOO_MANY_HEADERS, json.dumps(TOO_MANY).encode())
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() in FORWARDED}
        answer = httpx.request(
            self.command, self.server.upstream + self.path, headers=headers, content=body
        )
        kept = {k: v for k, v in answer.headers.items() if k.lower() in RETURNED}
        self._reply(answer.status_code, kept, answer.content)

    def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in {**headers, "content-length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests read `seen` instead."""


@pytest.fixture
def proxy(client_server: Server) -> Callable[..., FlakyProxy]:
    @contextmanager
    def start(plan: list[str]) -> Iterator[FlakyProxy]:
        server = FlakyProxy(client_server.base_url, plan)
        with serving(server):
            yield server

    return start


def test_an_idempotent_call_is_repeated_after_the_connection_broke(
    proxy: Callable[..., FlakyProxy], tenant: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    with proxy(["drop"]) as flaky, Client(flaky.url, tenant.keys[Role.EDITOR], retry=QUICK) as c:
        caplog.set_level(logging.INFO, logger="cadenza_client")
        assert c.tenant.get().id == tenant.id
    assert flaky.seen == [("GET", "/v1/tenant")] * 2
    assert "retry 1 of GET /v1/tenant" in caplog.text and "RemoteProtocolError" in caplog.text


def test_a_post_is_not_repeated_once_it_may_have_arrived(
    proxy: Callable[..., FlakyProxy], tenant: Tenant, editor: Client
) -> None:
    rule = editor.rules.create(NewRule(name="r", schedule="every 1h", code=SCRIPT))
    with (
        proxy(["drop"]) as flaky,
        Client(flaky.url, tenant.keys[Role.EDITOR], retry=QUICK) as c,
        pytest.raises(TransportFailed) as failed,
    ):
        c.rules.trigger(rule)
    assert failed.value.attempts == 1
    assert isinstance(failed.value.__cause__, httpx.RemoteProtocolError)
    assert flaky.seen == [("POST", f"/v1/rules/{rule.id}/trigger")]


def test_a_submission_with_an_idempotency_key_is_repeated_and_stays_one_action(
    proxy: Callable[..., FlakyProxy], tenant: Tenant, editor: Client
) -> None:
    later = datetime.now(UTC) + timedelta(days=1)
    with (
        proxy(["forward", "drop"]) as flaky,
        Client(flaky.url, tenant.keys[Role.EDITOR], retry=QUICK) as c,
    ):
        first = c.actions.submit(later, code=SCRIPT, key="once")
        again = c.actions.submit(later, code=SCRIPT + "# 2\n", key="once")
    assert again.id == first.id
    assert [a.id for a in editor.actions.list()] == [first.id]
    assert len(flaky.seen) == 3


def test_a_refused_connection_is_retried_even_for_a_post_then_raised() -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    with Client(nowhere, "cdz_unused", retry=QUICK) as client, pytest.raises(TransportFailed) as e:
        client.rules.trigger("r_1")
    assert e.value.attempts == QUICK.max_retries + 1
    assert isinstance(e.value.__cause__, httpx.ConnectError)


def test_an_error_answer_that_is_not_a_problem_raises_by_its_status_unrepeated(
    proxy: Callable[..., FlakyProxy], tenant: Tenant
) -> None:
    with (
        proxy(["bad-gateway"]) as flaky,
        Client(flaky.url, tenant.keys[Role.VIEWER]) as client,
        pytest.raises(ServerError) as failed,
    ):
        client.tenant.get()
    assert (failed.value.status, failed.value.type) == (502, "about:blank")
    assert "bad gateway" in failed.value.detail
    assert len(flaky.seen) == 1


def exhaust(client: Client) -> RateLimited:
    """Spend the tenant's request allowance; the 429 that ends it."""
    for _ in range(10):
        try:
            client.tenant.get()
        except RateLimited as limited:
            return limited
    raise AssertionError("no 429 after 10 requests")


@pytest.fixture
def limited_tenant(tenant: Tenant, operator: Client) -> Tenant:
    """A tenant allowed one request a minute: its second request waits up to 60 s."""
    operator.tenants.update(tenant.id, quotas=QuotaChanges(requests_per_minute=1))
    return tenant


def test_429_is_raised_with_its_retry_after_when_retries_are_off(
    limited_tenant: Tenant, connect: Callable[..., Client]
) -> None:
    limited = exhaust(connect(limited_tenant.keys[Role.VIEWER]))
    assert (limited.status, limited.type) == (429, "/problems/rate-limited")
    assert limited.retry_after_s is not None and 1 <= limited.retry_after_s <= 60


def test_a_retry_after_longer_than_the_policy_allows_is_raised_at_once(
    limited_tenant: Tenant, connect: Callable[..., Client], caplog: pytest.LogCaptureFixture
) -> None:
    exhaust(connect(limited_tenant.keys[Role.VIEWER]))
    impatient = connect(limited_tenant.keys[Role.VIEWER], RetryPolicy(max_retry_after_s=30))
    caplog.set_level(logging.INFO, logger="cadenza_client")
    with pytest.raises(RateLimited) as limited:
        impatient.tenant.get()
    assert limited.value.retry_after_s is not None and limited.value.retry_after_s > 30
    assert "retry" not in caplog.text


def test_429_is_repeated_after_retry_after_even_for_a_post(
    proxy: Callable[..., FlakyProxy],
    tenant: Tenant,
    editor: Client,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="cadenza_client")
    with proxy(["too-many"]) as flaky, Client(flaky.url, tenant.keys[Role.EDITOR]) as patient:
        created = patient.rules.create(NewRule(name="after 429", schedule="every 1h", code=SCRIPT))
    assert "retry 1 of POST /v1/rules in 1.00 s after 429" in caplog.text
    assert flaky.seen == [("POST", "/v1/rules")] * 2
    assert [r.id for r in editor.rules.list()] == [created.id]


async def test_the_async_client_waits_out_a_429_too(
    proxy: Callable[..., FlakyProxy], tenant: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cadenza_client")
    with proxy(["too-many"]) as flaky:
        async with AsyncClient(flaky.url, tenant.keys[Role.VIEWER]) as client:
            assert (await client.tenant.get()).id == tenant.id
    assert "retry 1 of GET /v1/tenant in 1.00 s after 429" in caplog.text
    assert len(flaky.seen) == 2
