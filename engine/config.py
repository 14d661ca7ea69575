"""`EngineConfig`: every knob of the engine as plain values (the API builds it from Settings)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.capabilities.specs import CapabilityPolicy


@dataclass(frozen=True)
class HttpPolicy:
    """The operator's bounds on scripts' HTTP requests (`ctx.http`), above every tenant's
    allow-list."""

    #: Schemes a tenant may put on its allow-list.
    schemes: frozenset[str] = frozenset({"https"})
    #: Allow hosts that resolve to loopback, private, link-local or other non-public addresses.
    allow_private: bool = False
    max_calls_per_run: int = 20
    #: Largest response body a script receives (the rest is refused, not cut).
    max_response_bytes: int = 60 * 1024
    max_redirects: int = 3


@dataclass(frozen=True)
class SmtpSettings:
    """The operator's mail server, through which email notification routes are sent."""

    host: str
    port: int = 587
    #: The From address of every notification email.
    sender: str = "cadenza@localhost"
    #: Log in with these when set (after STARTTLS when it is on).
    username: str = ""
    password: str = field(default="", repr=False)
    starttls: bool = True
    timeout_s: float = 10.0


@dataclass(frozen=True)
class EngineConfig:
    """How one engine node behaves. The engine never reads the environment itself."""

    #: This node's name, written into claimed actions, runs and tenant leases; empty: a name
    #: of this machine that survives restarts is chosen at start (`engine.loop.identity`).
    node_name: str = ""
    #: Sandbox runs in flight at once on this node, over every tenant.
    max_concurrency: int = 4
    #: Tenant lease length (scale-out); a dead node's tenants are taken over after this.
    lease_s: float = 30.0
    #: Longest a loop sleeps before re-checking (clock jumps, changes made by other nodes).
    wake_cap_s: float = 1.0
    #: Lease time of a claim on top of its run's timeout, until the lease renewal (every
    #: `lease_s / 3`) takes over: after this long past its timeout, a claim of a node that died
    #: is taken back by the sweeper of another. Keep it above `lease_s / 3`.
    lease_margin_s: float = 15.0
    #: How often expired run leases are swept.
    sweep_interval_s: float = 5.0
    #: Most due actions read and claimed in one transaction.
    batch_size: int = 100
    #: Most finished runs recorded in one transaction. A backlog of ended runs is recorded a
    #: few hundred at a time: each transaction pays a fixed toll (SQLite's one write lock,
    #: several statements each waiting for the busy event loop), and at 100 the recording
    #: fell behind in a burst (docs/performance.md). A steady load records far fewer at a time.
    completion_batch_size: int = 400
    #: UNTIL cap of open-ended schedules.
    horizon_years: int = 10
    #: Misfire grace when a rule sets none: later than this an occurrence counts as missed.
    default_grace_s: float = 60.0
    #: Successful runs older than this many days are purged; failed ones after the second.
    retention_ok_days: int = 30
    retention_failed_days: int = 90
    #: Rows deleted per retention statement (small batches keep the writer responsive).
    retention_batch: int = 500
    #: Allow webhook URLs that resolve to loopback/private addresses.
    allow_private_webhooks: bool = False
    #: Webhook delivery: attempts, first backoff, cap, request timeout.
    webhook_max_attempts: int = 8
    webhook_backoff_s: float = 5.0
    webhook_backoff_max_s: float = 3600.0
    webhook_timeout_s: float = 10.0
    #: Where email notifications go out (None: none can be sent; email routes fail, saying so).
    smtp: SmtpSettings | None = None
    #: Whether this node takes tenant leases (several nodes on one PostgreSQL).
    use_tenant_leases: bool = True
    #: Scripts' outbound HTTP (`ctx.http.request`).
    http: HttpPolicy = field(default_factory=HttpPolicy)
    #: The capabilities of the embedding product (`ctx.call`) and the bounds on their calls.
    capabilities: CapabilityPolicy = field(default_factory=CapabilityPolicy)
