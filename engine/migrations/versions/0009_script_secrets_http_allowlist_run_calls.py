"""Scripts that do real work: named script secrets (tenant_secrets.name), a tenant's HTTP
allow-list (tenant_http_origins) and the outbound calls of a run (runs.calls)

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
    op.create_table(
        "tenant_http_origins",
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("origin", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name="fk_tenant_http_origins_tenant_id_tenants",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "origin", name="pk_tenant_http_origins"),
    )
    op.add_column("runs", sa.Column("calls", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("calls")
    op.drop_table("tenant_http_origins")
    op.drop_index("ux_tenant_secrets_tenant_id_purpose_name", table_name="tenant_secrets")
    op.execute("DELETE FROM tenant_secrets WHERE name IS NOT NULL")
    with op.batch_alter_table("tenant_secrets") as batch:
        batch.drop_column("name")
