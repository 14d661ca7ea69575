"""Prometheus metrics of the engine (the API exposes them at /metrics)."""

from __future__ import annotations

import functools
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

RUNS = Counter(
    "cadenza_runs_total", "Runs finished, by outcome and runtime.", ["outcome", "runtime"]
)
LATENESS = Histogram(
    "cadenza_run_lateness_seconds",
    "Time from an action's due time to its run's start.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60),
)
SANDBOX_DURATION = Histogram(
    "cadenza_sandbox_duration_seconds",
    "Wall time of a run inside the sandbox, by runtime.",
    ["runtime"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
SKIPS = Counter(
    "cadenza_actions_not_run_total", "Actions finished without a run, by reason.", ["reason"]
)
CLAIMS_LOST = Counter("cadenza_claims_lost_total", "Completions whose claim no longer held.")
RECLAIMED = Counter(
    "cadenza_actions_reclaimed_total", "Running actions whose node died, reclaimed."
)
QUEUE_DEPTH = Gauge("cadenza_queue_depth", "Pending actions already due (a backlog).")
IN_FLIGHT = Gauge("cadenza_runs_in_flight", "Runs claimed by this node and not yet recorded.")
ACTIVE_TENANTS = Gauge("cadenza_active_tenants", "Tenants with a timer loop on this node.")
WEBHOOKS = Counter(
    "cadenza_webhook_deliveries_total", "Webhook delivery attempts, by result.", ["result"]
)


def observe_run(run: dict[str, Any]) -> None:
    """Count one recorded run: outcome, lateness, time in the sandbox."""
    _runs(run["outcome"], run["runtime"]).inc()
    LATENESS.observe(run["lateness_ms"] / 1000)
    _sandbox_duration(run["runtime"]).observe(run["duration_ms"] / 1000)


#: The labelled children, looked up once per label set: `labels()` validates and locks on
#: every call, a cost paid per run otherwise.
@functools.cache
def _runs(outcome: str, runtime: str) -> Any:
    return RUNS.labels(outcome=outcome, runtime=runtime)


@functools.cache
def _sandbox_duration(runtime: str) -> Any:
    return SANDBOX_DURATION.labels(runtime=runtime)
