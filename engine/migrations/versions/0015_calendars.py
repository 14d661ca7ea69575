"""Named per-tenant calendars of excluded/included dates, and the rules' references (issue 22)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calendars",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("excluded", sa.JSON(), nullable=False),
        sa.Column("included", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name="fk_calendars_tenant_id_tenants", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("tenant_id", "name", name="pk_calendars"),
    )
    with op.batch_alter_table("rules") as batch_op:
        batch_op.add_column(sa.Column("calendars", sa.JSON(), server_default="[]", nullable=False))
        batch_op.add_column(
            sa.Column("calendar_dates", sa.JSON(), server_default="[]", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("rules") as batch_op:
        batch_op.drop_column("calendar_dates")
        batch_op.drop_column("calendars")
    op.drop_table("calendars")
