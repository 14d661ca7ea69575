"""rules.paused_at: when a disabled rule was paused, so resuming can trace what it skipped

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rules", sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    # A rule paused before this column existed was paused at its last change or earlier: that
    # change is the latest instant known to lie inside the pause, so resuming traces no
    # occurrence from before the pause.
    rules = sa.table(
        "rules",
        sa.column("enabled", sa.Boolean),
        sa.column("paused_at", sa.DateTime(timezone=True)),
        sa.column("updated_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        rules.update().where(rules.c.enabled.is_(False)).values(paused_at=rules.c.updated_at)
    )


def downgrade() -> None:
    op.drop_column("rules", "paused_at")
