"""actions.expires_at, rules.edited_version, tenants.default_timezone (issue 22)

One-offs that expire unstarted; an ETag that a pause or a resume does not make stale; the zone
of a rule that names none.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "rules", sa.Column("edited_version", sa.Integer(), nullable=False, server_default="1")
    )
    op.execute("UPDATE rules SET edited_version = version")
    op.add_column(
        "tenants",
        sa.Column("default_timezone", sa.String(length=64), nullable=False, server_default="UTC"),
    )


def downgrade() -> None:
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("default_timezone")
    with op.batch_alter_table("rules") as batch:
        batch.drop_column("edited_version")
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("expires_at")
