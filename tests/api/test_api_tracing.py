"""One trace follows an occurrence from the API request that made it, through its claim and
its sandbox run, to the transaction that recorded it; the run stores its trace id.

The app and the engine run in this process (so the SDK's in-memory exporter sees their
spans), served over real HTTP by uvicorn on a free port."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
import uvicorn
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import Receive, Scope, Send
from support.ports import free_port

from api.app import create_app
from api.engine_settings import engine_config
from api.metrics import RouteShape
from api.settings import Settings
from api.tracing import RequestTracing
from engine.ops import tracing as tracing_module
from engine.service import EngineService
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants.registry import create_tenant
from tenants.secret_box import SecretBox

SCRIPT = "def main(ctx):\n    return ctx.attempt\n"
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_PARENT = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """The process's tracer provider, exporting to memory (set once: OpenTelemetry allows
    one global provider per process)."""
    memory = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return memory


@pytest.fixture
async def api(
    db: AsyncEngine, secret_box: SecretBox, exporter: InMemorySpanExporter
) -> AsyncIterator[httpx.AsyncClient]:
    """The real app and engine of one database, over HTTP, as a tenant's admin."""
    async with db.begin() as conn:
        _, issued = await create_tenant(conn, "traced")
    settings = Settings(database_url="sqlite:///unused.db", port=free_port(), node_name="n1")
    config = SandboxConfig(max_workers=1, runtimes=(RuntimeName.PYTHON,))
    async with Sandbox(config) as sandbox:
        service = EngineService(db, sandbox, engine_config(settings), secrets=secret_box)
        app = create_app(settings, db, service, secret_box)
        # A connection left open must not hold the teardown forever (a run of the whole
        # suite once hung here, where pytest-timeout's signal cannot interrupt the loop).
        server = uvicorn.Server(
            uvicorn.Config(
                app, port=settings.port, log_level="warning", timeout_graceful_shutdown=10
            )
        )
        serving = asyncio.create_task(server.serve())
        await service.start()
        try:
            while not server.started:
                await asyncio.sleep(0.01)
            headers = {"Authorization": f"Bearer {issued.secret}"}
            base_url = f"http://127.0.0.1:{settings.port}"
            async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=30) as client:
                exporter.clear()
                yield client
        finally:
            server.should_exit = True
            await serving
            await service.stop()


async def _run_of(client: httpx.AsyncClient, action_id: int) -> dict:
    for _ in range(600):
        runs = (await client.get("/v1/runs", params={"limit": 50})).json()["items"]
        if found := [r for r in runs if r["action_id"] == action_id]:
            return (await client.get(f"/v1/runs/{found[0]['id']}")).json()
        await asyncio.sleep(0.05)
    raise AssertionError(f"action {action_id} never ran")


def _request_span(spans: tuple[ReadableSpan, ...], span: ReadableSpan) -> ReadableSpan:
    """The server span of the request `span` descends from (FastAPI's own, on versions that
    trace requests themselves, or Cadenza's `HTTP <METHOD> <route>`)."""
    by_id = {s.context.span_id: s for s in spans}
    while span.kind is not trace.SpanKind.SERVER:
        assert span.parent is not None and span.parent.span_id in by_id, span.name
        span = by_id[span.parent.span_id]
    return span


def _named(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    found = [span for span in spans if span.name == name]
    assert len(found) == 1, [span.name for span in spans]
    return found[0]


async def _traced_run(
    api: httpx.AsyncClient, exporter: InMemorySpanExporter, headers: dict[str, str]
) -> tuple[dict, tuple[ReadableSpan, ...]]:
    body = {"run_at": datetime.now(UTC).isoformat(), "code": SCRIPT}
    created = await api.post("/v1/actions", json=body, headers=headers)
    assert created.status_code == 201, created.text
    run = await _run_of(api, created.json()["id"])
    for _ in range(200):  # the record span is made once the batch has committed
        if any(span.name == "cadenza.record" for span in exporter.get_finished_spans()):
            break
        await asyncio.sleep(0.05)
    return run, exporter.get_finished_spans()


async def test_one_trace_from_request_to_claim_run_and_record(
    api: httpx.AsyncClient, exporter: InMemorySpanExporter
) -> None:
    run, spans = await _traced_run(api, exporter, {})
    whole = _named(spans, "cadenza.run")
    request = _request_span(spans, whole)
    assert request.name.endswith("POST /v1/actions")
    for name in ("cadenza.claim", "cadenza.sandbox", "cadenza.record"):
        child = _named(spans, name)
        assert child.parent is not None and child.parent.span_id == whole.context.span_id, name
        assert child.context.trace_id == request.context.trace_id
    assert run["trace_id"] == trace.format_trace_id(request.context.trace_id)
    assert whole.attributes["cadenza.action_id"] == run["action_id"]
    assert whole.attributes["cadenza.attempt"] == 1
    assert _named(spans, "cadenza.sandbox").attributes["cadenza.outcome"] == "ok"
    claim, sandbox = _named(spans, "cadenza.claim"), _named(spans, "cadenza.sandbox")
    assert claim.start_time <= claim.end_time <= sandbox.start_time <= sandbox.end_time


async def test_a_callers_traceparent_is_continued(
    api: httpx.AsyncClient, exporter: InMemorySpanExporter
) -> None:
    run, spans = await _traced_run(api, exporter, {"traceparent": CALLER_PARENT})
    request = _request_span(spans, _named(spans, "cadenza.run"))
    assert trace.format_trace_id(request.context.trace_id) == CALLER_TRACE
    assert run["trace_id"] == CALLER_TRACE


async def test_requests_not_traced_upstream_get_a_server_span_named_by_route(
    exporter: InMemorySpanExporter,
) -> None:
    """Cadenza's own server span, for FastAPI versions that do not trace requests themselves
    (here around a bare ASGI app, which nothing else traces)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        parent = tracing_module.current_parent()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": (parent or "").encode()})

    shape = RouteShape(
        "/v1/rules/{rule_id}", re.compile(r"^/v1/rules/(?P<rule_id>[^/]+)$"), frozenset({"GET"})
    )
    traced = RequestTracing(app, [shape])
    exporter.clear()
    transport = httpx.ASGITransport(app=traced)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.get("/v1/rules/r_123", headers={"traceparent": CALLER_PARENT})
    span = _named(exporter.get_finished_spans(), "HTTP GET /v1/rules/{rule_id}")
    assert span.kind is trace.SpanKind.SERVER
    assert trace.format_trace_id(span.context.trace_id) == CALLER_TRACE
    assert answer.text.split("-")[2] == trace.format_span_id(span.context.span_id)


@pytest.mark.parametrize("exporting", [False, True])
async def test_without_an_exporter_only_a_callers_trace_is_carried(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch, exporting: bool
) -> None:
    """Where nothing exports traces, a request carrying its caller's `traceparent` still
    hands that trace to the actions it makes (the engine may export), and one without runs
    outside any span; where something exports, both get their server span."""
    import api.tracing

    monkeypatch.setattr(api.tracing, "is_exporting", lambda: exporting)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        parent = tracing_module.current_parent()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": (parent or "").encode()})

    shape = RouteShape("/v1/actions", re.compile(r"^/v1/actions$"), frozenset({"POST"}))
    transport = httpx.ASGITransport(app=RequestTracing(app, [shape]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        carried = await client.post("/v1/actions", headers={"traceparent": CALLER_PARENT})
        alone = await client.post("/v1/actions")
    assert carried.text.split("-")[1] == CALLER_TRACE
    if exporting:
        assert len(alone.text.split("-")[1]) == 32 and CALLER_TRACE not in alone.text
    else:
        assert alone.text == ""
