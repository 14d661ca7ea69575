"""actions.trace_parent and runs.trace_id: follow one occurrence from its API request to its run

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("trace_parent", sa.String(length=64), nullable=True))
    op.add_column("runs", sa.Column("trace_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "trace_id")
    op.drop_column("actions", "trace_parent")
