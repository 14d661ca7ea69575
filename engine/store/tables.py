"""Rules, actions, runs and events: the engine's tables (registered on the one schema MetaData)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

from tenants.tables import metadata
from tenants.types import BigId, UtcDateTime

rules = Table(
    "rules",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("schedule", Text, nullable=False),
    Column("timezone", String(64), nullable=False, server_default="UTC"),
    Column("dst_gap", String(16), nullable=False, server_default="shift"),
    Column("dst_repeat", String(16), nullable=False, server_default="first"),
    Column("runtime", String(16), nullable=False),
    Column("code", Text, nullable=False),
    Column("params", JSON, nullable=False),
    Column("enabled", Boolean, nullable=False, server_default="1"),
    # Bumped on every change; pending actions of an older version are cancelled, never run.
    Column("version", Integer, nullable=False, server_default="1"),
    Column("misfire_policy", String(16), nullable=False, server_default="run_latest"),
    Column("misfire_grace_s", Integer),
    Column("overlap_policy", String(16), nullable=False, server_default="skip"),
    Column("max_attempts", Integer, nullable=False, server_default="3"),
    Column("backoff_s", Float, nullable=False, server_default="10"),
    Column("backoff_max_s", Float, nullable=False, server_default="600"),
    Column("timeout_ms", Integer, nullable=False, server_default="5000"),
    Column("memory_mb", Integer, nullable=False, server_default="128"),
    Column("priority", Integer, nullable=False, server_default="0"),
    Column("jitter_s", Integer, nullable=False, server_default="0"),
    Column("start_at", UtcDateTime),
    Column("end_at", UtcDateTime),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("deleted_at", UtcDateTime),
    # When a disabled rule was paused (or created disabled); None while it is enabled.
    Column("paused_at", UtcDateTime),
    # The version of the last change to what the rule is (not a pause or a resume): an If-Match
    # naming a version from then on is still current (`engine.service.rule_etags`).
    Column("edited_version", Integer, nullable=False, server_default="1"),
    # The names of the tenant's calendars the rule honours, and a copy of their dates as of the
    # rule's version (`engine.store.calendar_codec`): a calendar edit writes a new version.
    Column("calendars", JSON, nullable=False, server_default="[]"),
    Column("calendar_dates", JSON, nullable=False, server_default="[]"),
    # The rule's labels, {key: value}; selected with `engine.store.rule_filters`.
    Column("labels", JSON, nullable=False, server_default="{}"),
)
Index("ix_rules_tenant_id_id", rules.c.tenant_id, rules.c.id)

calendars = Table(
    "calendars",
    metadata,
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
    Column("name", String(100), primary_key=True),
    Column("description", Text, nullable=False, server_default=""),
    # ISO dates (YYYY-MM-DD), sorted.
    Column("excluded", JSON, nullable=False),
    Column("included", JSON, nullable=False),
    Column("version", Integer, nullable=False, server_default="1"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

notification_routes = Table(
    "notification_routes",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    # None: the route applies to every rule of the tenant; else to this rule only.
    Column("rule_id", String(40)),
    # NotificationEvent values, sorted, each once.
    Column("events", JSON, nullable=False),
    Column("channel", String(16), nullable=False),
    # The email address or incoming-webhook URL; "" for the tenant webhook.
    Column("target", String(2000), nullable=False, server_default=""),
    # None: sent as it happens; else gathered into one digest every this many minutes.
    Column("digest_minutes", Integer),
    Column("created_at", UtcDateTime, nullable=False),
)
Index(
    "ix_notification_routes_tenant_id_id", notification_routes.c.tenant_id, notification_routes.c.id
)

# Per rule: whether it is in a failing streak and whether that streak's `failed` was sent to
# a route (so its end sends `recovered`). Written in the transaction that records a run.
notification_streaks = Table(
    "notification_streaks",
    metadata,
    Column("rule_id", ForeignKey("rules.id", ondelete="CASCADE"), primary_key=True),
    Column("failing", Boolean, nullable=False, server_default=false()),
    Column("notified", Boolean, nullable=False, server_default=false()),
)

# The notification outbox: one row per (notification, route), written in the transaction of
# the outcome it tells of; sent by `engine.webhooks.notices` (retried like the events).
notifications = Table(
    "notifications",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("route_id", ForeignKey("notification_routes.id", ondelete="CASCADE"), nullable=False),
    # A NotificationEvent value.
    Column("event", String(16), nullable=False),
    Column("rule_id", String(40)),
    Column("action_id", BigId),
    Column("run_id", BigId),
    Column("payload", JSON, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("delivery_status", String(16), nullable=False, server_default="pending"),
    Column("delivery_attempts", Integer, nullable=False, server_default="0"),
    # Due for delivery (a digest route's rows: the end of their window).
    Column("next_attempt_at", UtcDateTime),
    Column("attempted_at", UtcDateTime),
    Column("last_error", Text),
)
Index("ix_notifications_delivery", notifications.c.delivery_status, notifications.c.next_attempt_at)
Index("ix_notifications_route_id_id", notifications.c.route_id, notifications.c.id)

actions = Table(
    "actions",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("rule_id", ForeignKey("rules.id", ondelete="CASCADE")),
    Column("rule_version", Integer),
    # Idempotency key: a second submission with the same key updates the pending action.
    Column("key", String(200)),
    # One-off actions without a rule carry their own script.
    Column("runtime", String(16)),
    Column("code", Text),
    Column("params", JSON),
    Column("timeout_ms", Integer),
    Column("memory_mb", Integer),
    Column("scheduled_at", UtcDateTime, nullable=False),
    Column("due_at", UtcDateTime, nullable=False),
    Column("status", String(16), nullable=False, server_default="pending"),
    Column("reason", String(32)),
    Column("attempt", Integer, nullable=False, server_default="0"),
    Column("max_attempts", Integer, nullable=False, server_default="1"),
    # The optimistic lock: every state change bumps it and is conditional on the old value.
    Column("version", Integer, nullable=False, server_default="0"),
    Column("claimed_by", String(100)),
    Column("lease_until", UtcDateTime),
    Column("priority", Integer, nullable=False, server_default="0"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime),
    # When it was last claimed; NULL until its first claim (the one that plans the rule's next
    # occurrence). An action given back unstarted keeps it, so it never plans twice.
    Column("claimed_at", UtcDateTime),
    # When the current attempt's run started; NULL while claimed and not started yet.
    Column("started_at", UtcDateTime),
    # W3C traceparent of the traced API request that made it (`engine.ops.tracing`), if any.
    Column("trace_parent", String(64)),
    # A one-off not started by then is expired instead (NULL: it waits as long as it takes).
    Column("expires_at", UtcDateTime),
    UniqueConstraint("tenant_id", "key"),
)
Index("ix_actions_tenant_status_due", actions.c.tenant_id, actions.c.status, actions.c.due_at)
Index("ix_actions_status_due", actions.c.status, actions.c.due_at)
Index("ix_actions_status_lease", actions.c.status, actions.c.lease_until)
Index("ix_actions_rule_scheduled", actions.c.rule_id, actions.c.scheduled_at)
# A rule's next run (earliest pending action): without it SQLite scans every pending action.
Index("ix_actions_rule_status_due", actions.c.rule_id, actions.c.status, actions.c.due_at)
# A tenant's actions newest first (listing pages): without it SQLite sorts all of them per page.
Index("ix_actions_tenant_id_id", actions.c.tenant_id, actions.c.id)

runs = Table(
    "runs",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("action_id", ForeignKey("actions.id", ondelete="CASCADE"), nullable=False),
    Column("rule_id", ForeignKey("rules.id", ondelete="CASCADE")),
    Column("attempt", Integer, nullable=False),
    Column("node", String(100), nullable=False),
    Column("pid", Integer),
    Column("runtime", String(16), nullable=False),
    Column("planned_at", UtcDateTime, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("result", JSON),
    Column("error", Text),
    Column("error_line", Integer),
    Column("stdout", Text, nullable=False, server_default=""),
    Column("stderr", Text, nullable=False, server_default=""),
    Column("output_truncated", Boolean, nullable=False, server_default="0"),
    Column("duration_ms", Float, nullable=False),
    Column("cpu_ms", Float),
    Column("peak_memory_bytes", BigId),
    Column("fuel", BigId),
    Column("lateness_ms", Float, nullable=False),
    # False when the attempt lost its claim: its kv writes and events were discarded.
    Column("committed", Boolean, nullable=False, server_default="1"),
    # The OpenTelemetry trace of the run, when traces are exported.
    Column("trace_id", String(32)),
    # The run's outbound calls (`engine.runs.outbound_http.CallRecord`): never their payloads.
    Column("calls", JSON),
)
Index("ix_runs_tenant_id_id", runs.c.tenant_id, runs.c.id)
Index("ix_runs_rule_id_id", runs.c.rule_id, runs.c.id)
Index("ix_runs_action_id", runs.c.action_id)
Index("ix_runs_finished_at", runs.c.finished_at)

events = Table(
    "events",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("type", String(100), nullable=False),
    Column("payload", JSON),
    Column("source", String(16), nullable=False),
    Column("rule_id", String(40)),
    Column("action_id", BigId),
    Column("run_id", BigId),
    Column("created_at", UtcDateTime, nullable=False),
    Column("delivery_status", String(16), nullable=False, server_default="none"),
    Column("delivery_attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UtcDateTime),
    Column("last_error", Text),
)
Index("ix_events_tenant_id_id", events.c.tenant_id, events.c.id)
Index("ix_events_delivery", events.c.delivery_status, events.c.next_attempt_at)

# The engine nodes alive on this database: each renews its heartbeat with its leases, so
# that nodes can split the tenants fairly (a node holding no lease is still counted).
engine_nodes = Table(
    "engine_nodes",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("heartbeat_at", UtcDateTime, nullable=False),
    # The process holding the name (`engine.loop.identity`): a restart tells its own dead previous
    # incarnation from a live namesake by these.
    Column("host", String(255)),
    Column("incarnation", String(100)),
)

# Capability calls per tenant per minute (UTC, counted from the epoch), shared by every engine
# node on the database so the per-minute quota holds across nodes (`engine.store.call_minutes`).
capability_call_minutes = Table(
    "capability_call_minutes",
    metadata,
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
    Column("epoch_minute", Integer, primary_key=True, autoincrement=False),
    Column("calls", Integer, nullable=False),
)


# Every version of a rule as it was saved (create, edit, pause, resume, rollback): its full
# definition, to read, compare and roll back to (`engine.store.rule_versions`).
rule_versions = Table(
    "rule_versions",
    metadata,
    Column("rule_id", ForeignKey("rules.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("tenant_id", String(40), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)
