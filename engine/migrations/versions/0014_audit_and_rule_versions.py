"""The tenant audit log (audit_log) and rule version history (rule_versions), issue 22

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "audit_log",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=40), nullable=False),
        sa.Column("actor_prefix", sa.String(length=16), nullable=True),
        sa.Column("method", sa.String(length=8), nullable=False),
        sa.Column("route", sa.String(length=200), nullable=False),
        sa.Column("object_kind", sa.String(length=32), nullable=False),
        sa.Column("object_id", sa.String(length=300), nullable=False),
        sa.Column("before_digest", sa.String(length=64), nullable=True),
        sa.Column("after_digest", sa.String(length=64), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_tenant_id_id", "audit_log", ["tenant_id", "id"])
    op.create_index(
        "ix_audit_log_tenant_id_object_kind_object_id",
        "audit_log",
        ["tenant_id", "object_kind", "object_id"],
    )
    op.create_table(
        "rule_versions",
        sa.Column("rule_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["rule_id"], ["rules.id"], name="fk_rule_versions_rule_id_rules", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("rule_id", "version", name="pk_rule_versions"),
    )


def downgrade() -> None:
    op.drop_table("rule_versions")
    op.drop_index("ix_audit_log_tenant_id_object_kind_object_id", table_name="audit_log")
    op.drop_index("ix_audit_log_tenant_id_id", table_name="audit_log")
    op.drop_table("audit_log")
