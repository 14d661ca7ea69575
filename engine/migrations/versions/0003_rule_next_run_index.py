"""index for a rule's next run (earliest pending action of a rule)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_actions_rule_status_due", "actions", ["rule_id", "status", "due_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_actions_rule_status_due", table_name="actions")
