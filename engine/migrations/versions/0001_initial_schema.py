"""initial schema

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "tenants",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("status", sa.String(length=16), server_default="active", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("webhook_url", sa.String(length=2000), nullable=True),
        sa.Column("webhook_secret", sa.String(length=100), nullable=False),
        sa.Column("max_rules", sa.Integer(), server_default="1000", nullable=False),
        sa.Column("max_concurrency", sa.Integer(), server_default="2", nullable=False),
        sa.Column("max_timeout_ms", sa.Integer(), server_default="30000", nullable=False),
        sa.Column("max_memory_mb", sa.Integer(), server_default="256", nullable=False),
        sa.Column("min_interval_s", sa.Integer(), server_default="60", nullable=False),
        sa.Column("allow_secondly", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("max_runs_per_day", sa.Integer(), server_default="100000", nullable=False),
        sa.Column("max_cpu_s_per_day", sa.Integer(), server_default="3600", nullable=False),
        sa.Column("requests_per_minute", sa.Integer(), server_default="600", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenants")),
        sa.UniqueConstraint("name", name=op.f("uq_tenants_name")),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), server_default="", nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_api_keys_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("hash", name=op.f("uq_api_keys_hash")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_keys_prefix"), ["prefix"], unique=False)
        batch_op.create_index(batch_op.f("ix_api_keys_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("rule_id", sa.String(length=40), nullable=True),
        sa.Column("action_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivery_status", sa.String(length=16), server_default="none", nullable=False),
        sa.Column("delivery_attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_events_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(
            "ix_events_delivery", ["delivery_status", "next_attempt_at"], unique=False
        )
        batch_op.create_index("ix_events_tenant_id_id", ["tenant_id", "id"], unique=False)

    op.create_table(
        "kv",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("key", sa.String(length=256), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_kv_tenant_id_tenants"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("tenant_id", "key", name=op.f("pk_kv")),
    )
    op.create_table(
        "rules",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("schedule", sa.Text(), nullable=False),
        sa.Column("timezone", sa.String(length=64), server_default="UTC", nullable=False),
        sa.Column("dst_gap", sa.String(length=16), server_default="shift", nullable=False),
        sa.Column("dst_repeat", sa.String(length=16), server_default="first", nullable=False),
        sa.Column("runtime", sa.String(length=16), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default="1", nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column(
            "misfire_policy", sa.String(length=16), server_default="run_latest", nullable=False
        ),
        sa.Column("misfire_grace_s", sa.Integer(), nullable=True),
        sa.Column("overlap_policy", sa.String(length=16), server_default="skip", nullable=False),
        sa.Column("max_attempts", sa.Integer(), server_default="3", nullable=False),
        sa.Column("backoff_s", sa.Float(), server_default="10", nullable=False),
        sa.Column("backoff_max_s", sa.Float(), server_default="600", nullable=False),
        sa.Column("timeout_ms", sa.Integer(), server_default="5000", nullable=False),
        sa.Column("memory_mb", sa.Integer(), server_default="128", nullable=False),
        sa.Column("priority", sa.Integer(), server_default="0", nullable=False),
        sa.Column("jitter_s", sa.Integer(), server_default="0", nullable=False),
        sa.Column("start_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_rules_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rules")),
    )
    with op.batch_alter_table("rules", schema=None) as batch_op:
        batch_op.create_index("ix_rules_tenant_id_id", ["tenant_id", "id"], unique=False)

    op.create_table(
        "tenant_leases",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("node", sa.String(length=100), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_tenant_leases_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_tenant_leases")),
    )
    with op.batch_alter_table("tenant_leases", schema=None) as batch_op:
        batch_op.create_index("ix_tenant_leases_lease_until", ["lease_until"], unique=False)

    op.create_table(
        "usage",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("runs", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "cpu_ms",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            server_default="0",
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_usage_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "day", name=op.f("pk_usage")),
    )
    op.create_table(
        "actions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("rule_id", sa.String(length=40), nullable=True),
        sa.Column("rule_version", sa.Integer(), nullable=True),
        sa.Column("key", sa.String(length=200), nullable=True),
        sa.Column("runtime", sa.String(length=16), nullable=True),
        sa.Column("code", sa.Text(), nullable=True),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("timeout_ms", sa.Integer(), nullable=True),
        sa.Column("memory_mb", sa.Integer(), nullable=True),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), server_default="pending", nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("attempt", sa.Integer(), server_default="0", nullable=False),
        sa.Column("max_attempts", sa.Integer(), server_default="1", nullable=False),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("priority", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["rule_id"], ["rules.id"], name=op.f("fk_actions_rule_id_rules"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_actions_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_actions")),
        sa.UniqueConstraint("tenant_id", "key", name=op.f("uq_actions_tenant_id_key")),
    )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_actions_rule_scheduled", ["rule_id", "scheduled_at"], unique=False
        )
        batch_op.create_index("ix_actions_status_due", ["status", "due_at"], unique=False)
        batch_op.create_index("ix_actions_status_lease", ["status", "lease_until"], unique=False)
        batch_op.create_index(
            "ix_actions_tenant_status_due", ["tenant_id", "status", "due_at"], unique=False
        )

    op.create_table(
        "runs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column(
            "action_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("rule_id", sa.String(length=40), nullable=True),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("node", sa.String(length=100), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("runtime", sa.String(length=16), nullable=False),
        sa.Column("planned_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("error_line", sa.Integer(), nullable=True),
        sa.Column("stdout", sa.Text(), server_default="", nullable=False),
        sa.Column("stderr", sa.Text(), server_default="", nullable=False),
        sa.Column("output_truncated", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("cpu_ms", sa.Float(), nullable=True),
        sa.Column(
            "peak_memory_bytes", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("fuel", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("lateness_ms", sa.Float(), nullable=False),
        sa.Column("committed", sa.Boolean(), server_default="1", nullable=False),
        sa.ForeignKeyConstraint(
            ["action_id"],
            ["actions.id"],
            name=op.f("fk_runs_action_id_actions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["rule_id"], ["rules.id"], name=op.f("fk_runs_rule_id_rules"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_runs_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("ix_runs_action_id", ["action_id"], unique=False)
        batch_op.create_index("ix_runs_finished_at", ["finished_at"], unique=False)
        batch_op.create_index("ix_runs_rule_id_id", ["rule_id", "id"], unique=False)
        batch_op.create_index("ix_runs_tenant_id_id", ["tenant_id", "id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_tenant_id_id")
        batch_op.drop_index("ix_runs_rule_id_id")
        batch_op.drop_index("ix_runs_finished_at")
        batch_op.drop_index("ix_runs_action_id")

    op.drop_table("runs")
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index("ix_actions_tenant_status_due")
        batch_op.drop_index("ix_actions_status_lease")
        batch_op.drop_index("ix_actions_status_due")
        batch_op.drop_index("ix_actions_rule_scheduled")

    op.drop_table("actions")
    op.drop_table("usage")
    with op.batch_alter_table("tenant_leases", schema=None) as batch_op:
        batch_op.drop_index("ix_tenant_leases_lease_until")

    op.drop_table("tenant_leases")
    with op.batch_alter_table("rules", schema=None) as batch_op:
        batch_op.drop_index("ix_rules_tenant_id_id")

    op.drop_table("rules")
    op.drop_table("kv")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_tenant_id_id")
        batch_op.drop_index("ix_events_delivery")

    op.drop_table("events")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_tenant_id"))
        batch_op.drop_index(batch_op.f("ix_api_keys_prefix"))

    op.drop_table("api_keys")
    op.drop_table("tenants")
