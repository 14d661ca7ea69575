"""rules.labels: key=value pairs to select rules by (issue 22)

A JSON object on the rule rather than a table of pairs: a rule's labels are read and written
with it (one row, one version), and the selector compiles to a JSON lookup on both SQLite and
PostgreSQL (docs/decisions.md).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rules", sa.Column("labels", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("rules") as batch:
        batch.drop_column("labels")
