"""OpenTelemetry for the API process: exporting traces, and a span around every request.

Off unless `CADENZA_TRACING` says where traces go: `otlp` (the OTLP/HTTP exporter, configured
by the standard `OTEL_EXPORTER_OTLP_*` variables) or `console`; both need the `otel` extra
(`pip install 'cadenza[otel]'`). A request's span continues the caller's trace when the
request carries a `traceparent` header, and is named by the route template, never the raw
path. The engine's spans (`engine.ops.tracing`) join the same trace through the action's row.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from api.metrics import METHODS, UNMATCHED, RouteShape, route_of
from engine.ops.tracing import is_exporting

try:
    from opentelemetry import propagate, trace
except ImportError:  # the `otel` extra is not installed
    trace = None  # type: ignore[assignment]


class TracingUnavailable(Exception):
    """Traces were asked for but OpenTelemetry is not installed: pip install 'cadenza[otel]'."""


def configure(mode: str) -> None:
    """Install the exporter for `mode` (`none` installs nothing) as this process's provider."""
    if mode == "none":
        return
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError as exc:
        raise TracingUnavailable() from exc
    exporter: Any = ConsoleSpanExporter()
    if mode == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)


class RequestTracing:
    """ASGI middleware: each HTTP request runs inside a server span `HTTP <METHOD> <route>`,
    unless something outside already traces it (an ASGI instrumentation, say): one server
    span per request either way. FastAPI's own spans are off (`api.app`)."""

    def __init__(self, app: ASGIApp, shapes: list[RouteShape]) -> None:
        self.app = app
        self.shapes = shapes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            trace is None
            or scope["type"] != "http"
            or trace.get_current_span().get_span_context().is_valid
            or not (is_exporting() or _continues_a_trace(scope))
        ):
            # with nothing to export and no caller's trace to carry to the actions it makes,
            # the span would be the invalid one a request has without it
            await self.app(scope, receive, send)
            return
        found = route_of(self.shapes, scope["path"])
        method = scope["method"] if scope["method"] in METHODS else "other"
        name = f"HTTP {method} {found[0].path if found else UNMATCHED}"
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        tracer = trace.get_tracer("cadenza.api")
        with tracer.start_as_current_span(
            name, context=propagate.extract(headers), kind=trace.SpanKind.SERVER
        ):
            await self.app(scope, receive, send)


def _continues_a_trace(scope: Scope) -> bool:
    """Whether the request carries its caller's trace (the engine's spans of the actions it
    makes join that trace, even when this process exports nothing)."""
    return any(name == b"traceparent" for name, _ in scope["headers"])
