"""Tenants, their API keys, their key-value data and their usage.

`metadata` is the one MetaData of the whole schema: the engine's tables register on it too,
and Alembic migrations are checked against it.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from tenants.types import BigId, UtcDateTime

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

tenants = Table(
    "tenants",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("status", String(16), nullable=False, server_default="active"),
    Column("created_at", UtcDateTime, nullable=False),
    Column("webhook_url", String(2000)),
    # The zone of a rule or preview that names none.
    Column("default_timezone", String(64), nullable=False, server_default="UTC"),
    # Quotas: caps on what the tenant's rules may ask for.
    Column("max_rules", Integer, nullable=False, server_default="1000"),
    Column("max_concurrency", Integer, nullable=False, server_default="2"),
    Column("max_timeout_ms", Integer, nullable=False, server_default="30000"),
    Column("max_memory_mb", Integer, nullable=False, server_default="256"),
    Column("min_interval_s", Integer, nullable=False, server_default="60"),
    Column("allow_secondly", Boolean, nullable=False, server_default="0"),
    Column("max_runs_per_day", Integer, nullable=False, server_default="100000"),
    Column("max_cpu_s_per_day", Integer, nullable=False, server_default="3600"),
    Column("requests_per_minute", Integer, nullable=False, server_default="600"),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False, server_default=""),
    Column("prefix", String(16), nullable=False, index=True),
    Column("hash", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("last_used_at", UtcDateTime),
    Column("revoked_at", UtcDateTime),
)

kv = Table(
    "kv",
    metadata,
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
    Column("key", String(256), primary_key=True),
    Column("value", JSON, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

usage = Table(
    "usage",
    metadata,
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("runs", Integer, nullable=False, server_default="0"),
    Column("cpu_ms", BigId, nullable=False, server_default="0"),
)

# Every secret Cadenza keeps for a tenant, sealed with the operator key (`tenants.secrets`):
# the webhook signing secrets (the current one, and the previous ones while they still sign).
tenant_secrets = Table(
    "tenant_secrets",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
    Column("purpose", String(40), nullable=False),
    Column("sealed", Text, nullable=False),
    Column("hint", String(20), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("retires_at", UtcDateTime),
    # A script secret's name (`tenants.tenant_secrets`); None for the webhook signing secrets.
    Column("name", String(64)),
)
Index("ix_tenant_secrets_tenant_id_purpose", tenant_secrets.c.tenant_id, tenant_secrets.c.purpose)
Index(
    "ux_tenant_secrets_tenant_id_purpose_name",
    tenant_secrets.c.tenant_id,
    tenant_secrets.c.purpose,
    tenant_secrets.c.name,
    unique=True,
)

# Origins the tenant's scripts may call with ctx.http (`tenants.http_allowlist`), normalised.
tenant_http_origins = Table(
    "tenant_http_origins",
    metadata,
    Column(
        "tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True, nullable=False
    ),
    Column("origin", String(300), primary_key=True, nullable=False),
)

# The capabilities of the embedding product a tenant's scripts may call (`ctx.call`).
tenant_capabilities = Table(
    "tenant_capabilities",
    metadata,
    Column(
        "tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True, nullable=False
    ),
    Column("name", String(130), primary_key=True, nullable=False),
    Column("granted_at", UtcDateTime, nullable=False),
)

# Which node runs which tenant's loop: a lease renewed by its holder, taken over when expired.
tenant_leases = Table(
    "tenant_leases",
    metadata,
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
    Column("node", String(100), nullable=False),
    Column("lease_until", UtcDateTime, nullable=False),
    Column("version", Integer, nullable=False, server_default="0"),
)
Index("ix_tenant_leases_lease_until", tenant_leases.c.lease_until)

# The tenant's audit log (`tenants.audit_log`): one row per committed change made through the
# API, append-only. No foreign key: the log of a deleted tenant outlives it.
audit_log = Table(
    "audit_log",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("tenant_id", String(40), nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", String(40), nullable=False),
    Column("actor_prefix", String(16)),
    Column("method", String(8), nullable=False),
    Column("route", String(200), nullable=False),
    Column("object_kind", String(32), nullable=False),
    Column("object_id", String(300), nullable=False),
    Column("before_digest", String(64)),
    Column("after_digest", String(64), nullable=False),
    Column("request_id", String(64), nullable=False),
)
Index("ix_audit_log_tenant_id_id", audit_log.c.tenant_id, audit_log.c.id)
Index(
    "ix_audit_log_tenant_id_object_kind_object_id",
    audit_log.c.tenant_id,
    audit_log.c.object_kind,
    audit_log.c.object_id,
)

__all__ = [
    "api_keys",
    "audit_log",
    "kv",
    "metadata",
    "tenant_capabilities",
    "tenant_http_origins",
    "tenant_leases",
    "tenant_secrets",
    "tenants",
    "usage",
]
