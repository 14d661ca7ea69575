"""Traces that follow one occurrence: from the API request that made its action, through its
claim and its sandbox run, to the transaction that recorded it.

OpenTelemetry is optional (the `otel` extra). The engine only uses its API: with no SDK
configured (or not installed) every span here is a no-op and no trace id is stored. The API
request's context travels with the action it creates as a W3C `traceparent` (the
`actions.trace_parent` column), because the run happens later, maybe on another node. A run's
spans are made when it ends, with the times it recorded (claimed, started, finished): the
sandbox knows nothing of traces, and nothing is added to the run's own path while it runs.
The run's trace id is stored on its row (`runs.trace_id`), to find its trace from a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.domain.due import DueAction

try:
    from opentelemetry import trace
    from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
except ImportError:  # the `otel` extra is not installed: tracing is off
    trace = None  # type: ignore[assignment]

_PROPAGATOR = TraceContextTextMapPropagator() if trace is not None else None


@dataclass(frozen=True)
class RunTrace:
    """A recorded run's trace: its id (stored on the run) and its span, to parent the record."""

    trace_id: str
    context: Any


def current_parent() -> str | None:
    """The W3C traceparent of the span current here (an API request's), to store on an action;
    None when nothing is being traced."""
    if trace is None or not trace.get_current_span().get_span_context().is_valid:
        return None
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)  # type: ignore[union-attr]
    return carrier.get("traceparent")


def run_spans(
    action: DueAction,
    attempt: int,
    runtime: str,
    outcome: str,
    times: Sequence[datetime],
) -> RunTrace | None:
    """Spans of one ended run: `cadenza.run` over it, with `cadenza.claim` (claimed until
    started) and `cadenza.sandbox` (started until finished); `times` are those three instants.
    The parent is the request that made the action, if it was traced."""
    if not is_exporting():
        return None
    claimed_at, started_at, finished_at = times
    tracer = trace.get_tracer("cadenza.engine")
    parent = action.trace_parent
    context = _PROPAGATOR.extract({"traceparent": parent}) if parent else None  # type: ignore[union-attr]
    run = tracer.start_span("cadenza.run", context, start_time=_ns(claimed_at))
    if not run.get_span_context().is_valid:
        return None
    run.set_attributes(_ids(action, attempt) | {"cadenza.runtime": runtime})
    inside = trace.set_span_in_context(run)
    _span(tracer, "cadenza.claim", inside, claimed_at, started_at, {})
    _span(tracer, "cadenza.sandbox", inside, started_at, finished_at, {"cadenza.outcome": outcome})
    run.end(end_time=_ns(finished_at))
    return RunTrace(trace.format_trace_id(run.get_span_context().trace_id), inside)


def record_spans(
    traces: Sequence[RunTrace | None], started_at: datetime, ended_at: datetime
) -> None:
    """A `cadenza.record` span for each traced run of a batch recorded in one transaction."""
    if not is_exporting():
        return
    tracer = trace.get_tracer("cadenza.engine")
    for run in traces:
        if run is not None:
            _span(tracer, "cadenza.record", run.context, started_at, ended_at, {})


def is_exporting() -> bool:
    """Whether a tracer provider is set (an SDK's): with none, every span would be dropped,
    so none is made (its cost per run is in docs/performance.md)."""
    return trace is not None and not isinstance(
        trace.get_tracer_provider(), ProxyTracerProvider | NoOpTracerProvider
    )


def _span(
    tracer: Any, name: str, context: Any, start: datetime, end: datetime, attributes: dict[str, Any]
) -> None:
    span = tracer.start_span(name, context, start_time=_ns(start), attributes=attributes)
    span.end(end_time=_ns(max(start, end)))


def _ids(action: DueAction, attempt: int) -> dict[str, Any]:
    found = {
        "cadenza.tenant_id": action.tenant_id,
        "cadenza.rule_id": action.rule_id,
        "cadenza.action_id": action.id,
        "cadenza.attempt": attempt,
    }
    return {key: value for key, value in found.items() if value is not None}


def _ns(at: datetime) -> int:
    return int(at.timestamp() * 1_000_000_000)
