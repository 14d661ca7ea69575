"""actions.claimed_at / started_at and engine_nodes.host / incarnation: what a restart needs

- `actions.claimed_at`: when the action was last claimed; NULL until its first claim, which is
  the claim that plans its rule's next occurrence. An action given back unstarted (a stop, a
  restart) keeps it, so claiming it again plans nothing twice.
- `actions.started_at`: when the current attempt's run started; NULL while claimed and not yet
  started. A node that died is known to have started only these, so only these get a
  `crashed` attempt (with their real start time); the others go back to pending uncounted.
- `engine_nodes.host` / `incarnation`: which process holds a node name, so a restarted
  process can tell its own dead previous incarnation from a live namesake and take back its
  claims at once instead of after their leases.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("engine_nodes") as batch:
        batch.add_column(sa.Column("host", sa.String(255), nullable=True))
        batch.add_column(sa.Column("incarnation", sa.String(100), nullable=True))
    # An action attempted before this column existed has planned its next occurrence already.
    actions = sa.table(
        "actions",
        sa.column("attempt", sa.Integer),
        sa.column("claimed_at", sa.DateTime(timezone=True)),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        actions.update().where(actions.c.attempt > 0).values(claimed_at=actions.c.created_at)
    )


def downgrade() -> None:
    with op.batch_alter_table("engine_nodes") as batch:
        batch.drop_column("incarnation")
        batch.drop_column("host")
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("started_at")
        batch.drop_column("claimed_at")
