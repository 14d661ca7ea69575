"""tenant_secrets: every stored secret sealed with the operator key; tenants.webhook_secret goes

The plain-text signing secrets move into `tenant_secrets` marked `legacy.`: a migration has no
operator key, so the process that next starts with one (`cadenza serve`, `cadenza worker`,
`cadenza db upgrade`, `cadenza secrets reseal`) seals them (`tenants.secrets.seal_legacy`).
A downgrade gives back the secrets still in plain text; a sealed one cannot be opened here, so
its tenant gets a fresh random secret (roll the receiver's secret after a downgrade).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

LEGACY = "legacy."


def _tenant_secrets() -> sa.TableClause:
    return sa.table(
        "tenant_secrets",
        sa.column("tenant_id", sa.String),
        sa.column("purpose", sa.String),
        sa.column("sealed", sa.Text),
        sa.column("hint", sa.String),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )


def _tenants() -> sa.TableClause:
    return sa.table(
        "tenants",
        sa.column("id", sa.String),
        sa.column("webhook_secret", sa.String),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )


def upgrade() -> None:
    op.create_table(
        "tenant_secrets",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=40), nullable=False),
        sa.Column("purpose", sa.String(length=40), nullable=False),
        sa.Column("sealed", sa.Text(), nullable=False),
        sa.Column("hint", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retires_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_tenant_secrets_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenant_secrets")),
    )
    op.create_index(
        "ix_tenant_secrets_tenant_id_purpose", "tenant_secrets", ["tenant_id", "purpose"]
    )
    tenants, stored = _tenants(), _tenant_secrets()
    plain = sa.select(
        tenants.c.id,
        sa.literal("webhook_signing"),
        sa.literal(LEGACY) + tenants.c.webhook_secret,
        sa.func.substr(tenants.c.webhook_secret, 1, 6),
        tenants.c.created_at,
    )
    op.execute(
        stored.insert().from_select(["tenant_id", "purpose", "sealed", "hint", "created_at"], plain)
    )
    op.drop_column("tenants", "webhook_secret")


def downgrade() -> None:
    op.add_column(
        "tenants",
        sa.Column("webhook_secret", sa.String(length=100), server_default="", nullable=False),
    )
    tenants, stored = _tenants(), _tenant_secrets()
    bind = op.get_bind()
    kept = dict(
        bind.execute(
            sa.select(stored.c.tenant_id, sa.func.substr(stored.c.sealed, len(LEGACY) + 1)).where(
                stored.c.sealed.like(f"{LEGACY}%")
            )
        ).all()
    )
    for (tenant_id,) in bind.execute(sa.select(tenants.c.id)).all():
        secret = kept.get(tenant_id) or secrets.token_urlsafe(32)
        bind.execute(
            tenants.update().where(tenants.c.id == tenant_id).values(webhook_secret=secret)
        )
    op.drop_index("ix_tenant_secrets_tenant_id_purpose", table_name="tenant_secrets")
    op.drop_table("tenant_secrets")
