"""Prometheus metrics of the engine (the API serves them to the operator at /metrics).

Every label takes its values from a closed set (runtimes, run outcomes, skip reasons,
delivery outcomes), so no input can add series. The one exception, a tenant label, exists only
when the operator asks for it (`metrics_tenant_labels`): one series per tenant and outcome.

Counters that mirror database rows (runs by outcome, actions finished without a run) move only
when the transaction writing those rows commits (`counting`, applied by `Deps.write`), so
after a failed transaction they still equal the records.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:  # the command line imports this module; the sandbox loads wasmtime
    from engine.store.rows import NewRun
    from sandbox import Sandbox

_WAIT_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60)
_RUN_BUCKETS_S = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120)

RUNS = Counter(
    "cadenza_runs_total", "Runs recorded, by runtime and outcome.", ["runtime", "outcome"]
)
TENANT_RUNS = Counter(
    "cadenza_tenant_runs_total",
    "Runs recorded, by tenant and outcome (only with metrics_tenant_labels).",
    ["tenant_id", "outcome"],
)
QUEUE_WAIT = Histogram(
    "cadenza_run_queue_wait_seconds",
    "From an action's due time to its run's start (the run's lateness), by runtime.",
    ["runtime"],
    buckets=_WAIT_BUCKETS_S,
)
RUN_DURATION = Histogram(
    "cadenza_run_duration_seconds",
    "Wall time of a run inside the sandbox, by runtime.",
    ["runtime"],
    buckets=_RUN_BUCKETS_S,
)
SKIPS = Counter(
    "cadenza_actions_not_run_total",
    "Actions finished without a run (skipped, expired, cancelled), by reason.",
    ["reason"],
)
CLAIMS_LOST = Counter("cadenza_claims_lost_total", "Completions whose claim no longer held.")
RECLAIMED = Counter(
    "cadenza_actions_reclaimed_total", "Running actions whose node died, reclaimed."
)
QUEUE_DEPTH = Gauge("cadenza_queue_depth", "Pending actions already due (a backlog).")
IN_FLIGHT = Gauge("cadenza_runs_in_flight", "Runs claimed by this node and not yet recorded.")
ACTIVE_TENANTS = Gauge("cadenza_active_tenants", "Tenants with a timer loop on this node.")


class DeliveryOutcome(StrEnum):
    """How one webhook delivery attempt ended (the `outcome` label)."""

    DELIVERED = "delivered"
    """The receiver answered 2xx."""
    RETRYING = "retrying"
    """It failed and will be tried again after a backoff."""
    FAILED = "failed"
    """It failed for good: attempts spent, or the URL may not be called."""
    NO_WEBHOOK = "no_webhook"
    """The tenant had no webhook when the event came up for delivery."""


CAPABILITY_CALLS = Counter(
    "cadenza_capability_calls_total",
    "Scripts' capability calls, by capability ('-': not registered) and outcome "
    "(ok, failed, refused, over_run_quota).",
    ["capability", "outcome"],
)
WEBHOOKS = Counter(
    "cadenza_webhook_deliveries_total", "Webhook delivery attempts, by outcome.", ["outcome"]
)
WEBHOOK_BACKLOG = Gauge(
    "cadenza_webhook_backlog", "Events waiting for delivery, due now or retrying later."
)
NOTIFICATIONS = Counter(
    "cadenza_notification_deliveries_total",
    "Notification delivery attempts (one per message: a digest counts once), by channel and "
    "outcome.",
    ["channel", "outcome"],
)
NOTIFICATION_BACKLOG = Gauge(
    "cadenza_notification_backlog",
    "Notifications waiting for delivery: due now, retrying, or waiting for their digest.",
)


class _SandboxWorkers(Collector):
    """The worker counts of the sandboxes of this process's nodes, read when scraped
    (the sandbox counts them, and knows nothing of Prometheus)."""

    def __init__(self) -> None:
        self.sandboxes: set[Sandbox] = set()

    def collect(self) -> Iterator[CounterMetricFamily]:
        counts = [sandbox.worker_counts() for sandbox in self.sandboxes]
        yield CounterMetricFamily(
            "cadenza_sandbox_workers_started",
            "Sandbox workers forked (every runtime).",
            sum(c.started for c in counts),
        )
        yield CounterMetricFamily(
            "cadenza_sandbox_workers_crashed",
            "Sandbox workers that died without reporting (a signal, a native crash).",
            sum(c.crashed for c in counts),
        )


_SANDBOX_WORKERS = _SandboxWorkers()
REGISTRY.register(_SANDBOX_WORKERS)


def watch_sandbox(sandbox: Sandbox) -> Callable[[], None]:
    """Count `sandbox`'s workers until the returned function is called."""
    _SANDBOX_WORKERS.sandboxes.add(sandbox)
    return lambda: _SANDBOX_WORKERS.sandboxes.discard(sandbox)


#: Observations made in the current write transaction (`counting`), to apply once it commits.
#: A context variable, not state on the connection: a cancelled transaction's connection may
#: refuse to be touched, and an error there would hide the cancellation.
_PENDING: ContextVar[list[Callable[[], object]] | None] = ContextVar(
    "cadenza_metrics_pending", default=None
)
#: Whether runs are also counted per tenant (`configure`); off unless the operator asks.
_tenant_labels = False


def configure(*, tenant_labels: bool) -> None:
    """Set once when a process starts (from `metrics_tenant_labels`)."""
    global _tenant_labels
    _tenant_labels = tenant_labels


def count_runs(runs: Sequence[NewRun]) -> None:
    """Count `runs` (being inserted) once the transaction commits."""
    for run in runs:
        _defer(functools.partial(_observe_run, run))


def count_skips(reason: str | None, amount: int) -> None:
    """`amount` actions finished without a run for `reason`, once the transaction commits."""
    if amount:
        _defer(functools.partial(_skips(str(reason)).inc, amount))


def _observe_run(run: NewRun) -> None:
    runtime, outcome = str(run.runtime), str(run.outcome)
    _runs(runtime, outcome).inc()
    _queue_wait(runtime).observe(run.lateness_ms / 1000)
    _run_duration(runtime).observe(run.duration_ms / 1000)
    if _tenant_labels:
        TENANT_RUNS.labels(tenant_id=run.tenant_id, outcome=outcome).inc()


def _defer(observation: Callable[[], object]) -> None:
    pending = _PENDING.get()
    if pending is None:  # outside `counting`: the caller commits on its own
        observation()
    else:
        pending.append(observation)


@contextlib.contextmanager
def counting() -> Iterator[Callable[[], None]]:
    """Collect the counts made in this block (this task's write transaction); yields what
    applies them, to call once the transaction has committed (a rolled-back one wrote no
    rows, so it counts nothing)."""
    pending: list[Callable[[], object]] = []
    token = _PENDING.set(pending)

    def apply() -> None:
        for observation in pending:
            observation()
        pending.clear()

    try:
        yield apply
    finally:
        _PENDING.reset(token)


@functools.cache
def _skips(reason: str) -> Any:
    return SKIPS.labels(reason=reason)


#: The labelled children, looked up once per label set: `labels()` validates and locks on
#: every call, a cost paid per run otherwise.
@functools.cache
def _runs(runtime: str, outcome: str) -> Any:
    return RUNS.labels(runtime=runtime, outcome=outcome)


@functools.cache
def _queue_wait(runtime: str) -> Any:
    return QUEUE_WAIT.labels(runtime=runtime)


@functools.cache
def _run_duration(runtime: str) -> Any:
    return RUN_DURATION.labels(runtime=runtime)
