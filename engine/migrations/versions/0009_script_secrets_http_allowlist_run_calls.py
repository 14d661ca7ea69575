"""Scripts that do real work: named script secrets (tenant_secrets.name), a tenant's HTTP
allow-list (tenants.http_allowlist) and the outbound calls of a run (runs.calls)

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
    op.add_column("tenants", sa.Column("http_allowlist", sa.JSON(), nullable=True))
    op.add_column("runs", sa.Column("calls", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("calls")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("http_allowlist")
    op.drop_index("ux_tenant_secrets_tenant_id_purpose_name", table_name="tenant_secrets")
    op.execute("DELETE FROM tenant_secrets WHERE name IS NOT NULL")
    with op.batch_alter_table("tenant_secrets") as batch:
        batch.drop_column("name")
