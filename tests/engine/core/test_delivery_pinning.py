"""Webhooks go to the address that was checked (no DNS rebinding between the check and the
connection), as if to the URL's host: its Host header, and over TLS its name for SNI and the
certificate check. A host name resolving to loopback is refused unless allowed."""

from __future__ import annotations

import hashlib
import hmac
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.threaded_server import serving
from support.waiting import eventually
from support.webhooks import point_webhook

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import events
from engine.webhooks.signing import SIGNATURE_HEADER
from engine.webhooks.webhook_http import new_client, pin, post_pinned
from sandbox import Sandbox
from tenants.secret_box import SecretBox

EMITTER = "def main(ctx):\n    ctx.emit('invoice.due', {'amount': 42})\n"
#: What `localhost` resolves to first: the address a pinned request must go to.
LOCALHOST = socket.getaddrinfo("localhost", None, type=socket.SOCK_STREAM)[0][4][0]


class Receiver:
    """A real HTTP(S) server on one address that accepts every POST and keeps it, with the
    client's port (one per connection)."""

    def __init__(self, address: str, tls: ssl.SSLContext | None) -> None:
        received: list[tuple[dict[str, str], bytes, int]] = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keeps connections alive unless the client closes

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((dict(self.headers), body, self.client_address[1]))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet."""

        class Server(ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in address else socket.AF_INET

        self.received = received
        self.server = Server((address, 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_port


@contextmanager
def receiving(address: str, tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    receiver = Receiver(address, tls)
    with serving(receiver.server):
        yield receiver


DeliverOnce = Callable[[EngineService, str], Awaitable[tuple[str, dict[str, object]]]]


@pytest.fixture
def deliver_once(
    db: AsyncEngine, tenant_id: str, clock: ManualClock, secret_box: SecretBox
) -> DeliverOnce:
    """Point the tenant's webhook at a URL, run one emitting action on a service, return the
    secret and the event after its first delivery attempt."""

    async def deliver(service: EngineService, url: str) -> tuple[str, dict[str, object]]:
        secret = await point_webhook(db, secret_box, tenant_id, url)
        await service.submit_action(tenant_id, run_at=clock.now(), code=EMITTER)
        await service.start()

        async def attempted() -> dict[str, object] | None:
            async with db.connect() as conn:
                event = (await conn.execute(select(events))).mappings().first()
            return dict(event) if event is not None and event["delivery_attempts"] else None

        return secret, await eventually(attempted)

    return deliver


@pytest_asyncio.fixture(loop_scope="module")
async def private_allowed(
    db: AsyncEngine,
    sandbox: Sandbox,
    engine_config: EngineConfig,
    clock: ManualClock,
    secret_box: SecretBox,
) -> AsyncIterator[EngineService]:
    config = replace(engine_config, allow_private_webhooks=True, webhook_timeout_s=5)
    service = EngineService(db, sandbox, config, clock, secret_box)
    try:
        yield service
    finally:
        await service.stop()


async def test_host_name_is_resolved_once_and_sent_as_host_header(
    private_allowed: EngineService, deliver_once: DeliverOnce
) -> None:
    with receiving(LOCALHOST) as receiver:
        url = f"http://localhost:{receiver.port}/hook"
        pinned = await pin(url, allow_private=True)
        secret, event = await deliver_once(private_allowed, url)
    assert (pinned.url.host, pinned.host_header) == (LOCALHOST, f"localhost:{receiver.port}")
    assert event["delivery_status"] == "delivered", event["last_error"]
    [(headers, body, _)] = receiver.received
    assert headers["Host"] == f"localhost:{receiver.port}"
    assert headers["X-Cadenza-Event-Id"] == str(event["id"])
    timestamp, signature = (part.split("=", 1)[1] for part in headers[SIGNATURE_HEADER].split(","))
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(signature, expected.hexdigest())


async def test_host_name_resolving_to_loopback_is_refused_unless_allowed(
    service: EngineService, deliver_once: DeliverOnce
) -> None:
    with receiving(LOCALHOST) as receiver:
        _, event = await deliver_once(service, f"http://localhost:{receiver.port}/hook")
        await service.stop()
    assert event["delivery_status"] == "failed"
    assert f"localhost resolves to {LOCALHOST}, a private or local address" in str(
        event["last_error"]
    )
    assert receiver.received == []


async def test_unresolvable_host_is_retried_not_refused(
    private_allowed: EngineService, deliver_once: DeliverOnce
) -> None:
    _, event = await deliver_once(private_allowed, "http://cadenza-test.invalid/hook")
    assert event["delivery_status"] == "pending"
    assert str(event["last_error"]).startswith("cannot resolve the webhook host")


@pytest.fixture(scope="module")
def localhost_cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for the name `localhost` only, not for any address."""
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


async def test_tls_is_verified_for_the_host_name_at_the_pinned_address(
    localhost_cert: tuple[Path, Path],
) -> None:
    cert, key = localhost_cert
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))
    with receiving(LOCALHOST, server_tls) as receiver:
        pinned = await pin(f"https://localhost:{receiver.port}/hook", allow_private=True)
        async with httpx.AsyncClient(verify=trusting, trust_env=False) as client:
            response = await post_pinned(client, pinned, b"{}", {}, timeout_s=10)
        # The same address without the name fails: the certificate names no address.
        async with httpx.AsyncClient(verify=trusting, trust_env=False) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.post(str(pinned.url), content=b"{}", timeout=10)
    assert pinned.url.host == LOCALHOST
    assert response.status_code == 204
    assert [headers["Host"] for headers, _, _ in receiver.received] == [
        f"localhost:{receiver.port}"
    ]


async def test_delivery_client_opens_a_connection_per_request() -> None:
    """A kept-alive connection to an address could carry a later request for another host
    name on it, past that name's check."""
    with receiving(LOCALHOST) as receiver:
        pinned = await pin(f"http://localhost:{receiver.port}/hook", allow_private=True)
        async with new_client() as client:
            for _ in range(2):
                response = await post_pinned(client, pinned, b"{}", {}, timeout_s=10)
                assert response.status_code == 204
    assert len({port for _, _, port in receiver.received}) == 2
