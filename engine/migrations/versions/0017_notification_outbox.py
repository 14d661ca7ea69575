"""Notification outbox and failing streaks: what is sent to the notification routes (issue 22)

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_AT = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "notification_streaks",
        sa.Column("rule_id", sa.String(length=40), nullable=False),
        sa.Column("failing", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("notified", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["rule_id"],
            ["rules.id"],
            name="fk_notification_streaks_rule_id_rules",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("rule_id", name="pk_notification_streaks"),
    )
    op.create_table(
        "notifications",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("route_id", _ID, nullable=False),
        sa.Column("event", sa.String(length=16), nullable=False),
        sa.Column("rule_id", sa.String(length=40), nullable=True),
        sa.Column("action_id", _ID, nullable=True),
        sa.Column("run_id", _ID, nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.Column(
            "delivery_status", sa.String(length=16), server_default="pending", nullable=False
        ),
        sa.Column("delivery_attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("next_attempt_at", _AT, nullable=True),
        sa.Column("attempted_at", _AT, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name="fk_notifications_tenant_id_tenants",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["route_id"],
            ["notification_routes.id"],
            name="fk_notifications_route_id_notification_routes",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_notifications"),
    )
    op.create_index(
        "ix_notifications_delivery", "notifications", ["delivery_status", "next_attempt_at"]
    )
    op.create_index("ix_notifications_route_id_id", "notifications", ["route_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_notifications_route_id_id", table_name="notifications")
    op.drop_index("ix_notifications_delivery", table_name="notifications")
    op.drop_table("notifications")
    op.drop_table("notification_streaks")
