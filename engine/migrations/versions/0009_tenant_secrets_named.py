"""tenant_secrets.name: a tenant's named script secrets beside its webhook signing secrets

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tenant_secrets") as batch:
        batch.add_column(sa.Column("name", sa.String(length=64), nullable=True))
    op.create_index(
        "ux_tenant_secrets_tenant_id_purpose_name",
        "tenant_secrets",
        ["tenant_id", "purpose", "name"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ux_tenant_secrets_tenant_id_purpose_name", table_name="tenant_secrets")
    op.execute("DELETE FROM tenant_secrets WHERE name IS NOT NULL")
    with op.batch_alter_table("tenant_secrets") as batch:
        batch.drop_column("name")
