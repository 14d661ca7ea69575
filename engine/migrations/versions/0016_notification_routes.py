"""Notification routes: which outcomes of a tenant's rules are sent where (issue 22)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notification_routes",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("rule_id", sa.String(length=40), nullable=True),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=2000), server_default="", nullable=False),
        sa.Column("digest_minutes", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name="fk_notification_routes_tenant_id_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_notification_routes"),
    )
    op.create_index(
        "ix_notification_routes_tenant_id_id", "notification_routes", ["tenant_id", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_notification_routes_tenant_id_id", table_name="notification_routes")
    op.drop_table("notification_routes")
