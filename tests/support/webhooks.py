"""Pointing a tenant's webhook somewhere in-process, as `PUT /v1/webhook` and a rotation do."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.secret_box import SecretBox
from tenants.settings import rotate_secret, set_webhook_url


async def point_webhook(db: AsyncEngine, box: SecretBox, tenant_id: str, url: str) -> str:
    """Set the tenant's webhook URL and return a fresh signing secret (the only live one)."""
    now = datetime.now(UTC)
    async with db.begin() as conn:
        await set_webhook_url(conn, box, tenant_id, url, now)
        return await rotate_secret(conn, box, tenant_id, now, overlap=now - now)
