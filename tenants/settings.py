"""A tenant's own settings: where its events are delivered and the secret that signs them.

The signing secret is random (256 bits), stored as is (the delivery worker needs it to sign),
shown to the tenant only when it is rotated, and identified afterwards by its first characters.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import InvalidInput, NotFound
from tenants.tables import tenants

MAX_URL_CHARS = 2000
SECRET_HINT_CHARS = 6


@dataclass(frozen=True)
class WebhookSettings:
    url: str | None
    secret_hint: str
    """The secret's first characters, to tell which secret a receiver holds."""


def check_webhook_url(url: str, *, allow_private: bool) -> str:
    """An http(s) URL with a host; loopback/private/link-local literals only when allowed."""
    parts = urlsplit(url)
    if len(url) > MAX_URL_CHARS or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(
            f"webhook URL {url[:80]!r} is not valid: use http(s)://host/path, "
            f"at most {MAX_URL_CHARS} characters"
        )
    if not allow_private and _is_private(parts.hostname):
        raise InvalidInput(
            f"webhook URL host {parts.hostname!r} is a loopback or private address: use a "
            "public host (the operator may allow private ones with CADENZA_ALLOW_PRIVATE_WEBHOOKS)"
        )
    return url


def _is_private(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(
        ".localhost"
    ):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global


async def get_webhook(conn: AsyncConnection, tenant_id: str) -> WebhookSettings:
    row = (
        await conn.execute(
            select(tenants.c.webhook_url, tenants.c.webhook_secret).where(tenants.c.id == tenant_id)
        )
    ).first()
    if row is None:
        raise NotFound(f"no tenant {tenant_id!r}")
    return WebhookSettings(row.webhook_url, row.webhook_secret[:SECRET_HINT_CHARS])


async def set_webhook_url(
    conn: AsyncConnection, tenant_id: str, url: str | None
) -> WebhookSettings:
    """Set (or with None, clear) where the tenant's events are delivered; the URL is pre-checked."""
    await conn.execute(update(tenants).where(tenants.c.id == tenant_id).values(webhook_url=url))
    return await get_webhook(conn, tenant_id)


async def rotate_secret(conn: AsyncConnection, tenant_id: str) -> str:
    """Replace the signing secret; the new one is returned once (deliveries sign with it next)."""
    secret = "whsec_" + secrets.token_urlsafe(32)
    result = await conn.execute(
        update(tenants).where(tenants.c.id == tenant_id).values(webhook_secret=secret)
    )
    if result.rowcount == 0:
        raise NotFound(f"no tenant {tenant_id!r}")
    return secret
