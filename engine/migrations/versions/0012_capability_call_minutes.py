"""Capability calls per tenant per minute, counted for every engine node (issue 21)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "capability_call_minutes",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("epoch_minute", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name="fk_capability_call_minutes_tenant_id_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "epoch_minute", name="pk_capability_call_minutes"),
    )


def downgrade() -> None:
    op.drop_table("capability_call_minutes")
