"""A tenant's own settings: where its events are delivered and the secrets that sign them.

A signing secret is random (256 bits), sealed with the operator key (`tenants.secrets`), shown
to the tenant only when it is made (`rotate_secret`), and identified afterwards by its first
characters. A tenant gets its first one when it first sets a webhook URL. Rotating keeps the
previous secret signing beside the new one for an overlap window, so a receiver can switch
without rejecting a delivery; at most one previous secret signs at a time.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants import secrets as stored
from tenants.errors import InvalidInput, NotFound
from tenants.secret_box import SecretBox
from tenants.secrets import SecretPurpose
from tenants.tables import tenants

MAX_URL_CHARS = 2000
SECRET_PREFIX = "whsec_"
SECRET_HINT_CHARS = len(SECRET_PREFIX) + 4
#: How long the previous signing secret keeps signing after a rotation, unless asked otherwise.
DEFAULT_OVERLAP = timedelta(hours=24)
MAX_OVERLAP = timedelta(days=7)
SIGNING = SecretPurpose.WEBHOOK_SIGNING


@dataclass(frozen=True)
class WebhookSettings:
    url: str | None
    secret_hint: str | None
    """The current secret's first characters, to tell which secret a receiver holds (None
    until the tenant first sets a webhook or rotates)."""
    previous_secret_hint: str | None
    previous_secret_retires_at: datetime | None
    """Until when the previous secret still signs deliveries beside the current one."""


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


async def get_webhook(conn: AsyncConnection, tenant_id: str, now: datetime) -> WebhookSettings:
    url = (
        await conn.execute(select(tenants.c.webhook_url).where(tenants.c.id == tenant_id))
    ).first()
    if url is None:
        raise NotFound(f"no tenant {tenant_id!r}")
    live = await stored.hints(conn, tenant_id, SIGNING, now)
    current = [hint for hint, ends_at in live if ends_at is None]
    previous = [(hint, ends_at) for hint, ends_at in live if ends_at is not None]
    return WebhookSettings(
        url.webhook_url,
        current[0] if current else None,
        previous[0][0] if previous else None,
        previous[0][1] if previous else None,
    )


async def set_webhook_url(
    conn: AsyncConnection, box: SecretBox, tenant_id: str, url: str | None, now: datetime
) -> WebhookSettings:
    """Set (or with None, clear) where the tenant's events are delivered; the URL is pre-checked.
    A tenant without a signing secret gets one (read it by rotating)."""
    result = await conn.execute(
        update(tenants).where(tenants.c.id == tenant_id).values(webhook_url=url)
    )
    if result.rowcount == 0:
        raise NotFound(f"no tenant {tenant_id!r}")
    settings = await get_webhook(conn, tenant_id, now)
    if url is not None and settings.secret_hint is None:
        await _add_secret(conn, box, tenant_id, now)
        settings = await get_webhook(conn, tenant_id, now)
    return settings


async def rotate_secret(
    conn: AsyncConnection,
    box: SecretBox,
    tenant_id: str,
    now: datetime,
    overlap: timedelta = DEFAULT_OVERLAP,
) -> str:
    """A new signing secret, returned once; the current one keeps signing for `overlap` (zero:
    it stops now), and an older one still in its window stops now."""
    if not timedelta(0) <= overlap <= MAX_OVERLAP:
        raise InvalidInput(
            f"overlap of {overlap.total_seconds():.0f} s is not allowed: use 0 to "
            f"{MAX_OVERLAP.total_seconds():.0f} s (7 days)"
        )
    await get_webhook(conn, tenant_id, now)  # NotFound for a tenant that is gone
    await stored.retire(conn, tenant_id, SIGNING, now + overlap, now)
    return await _add_secret(conn, box, tenant_id, now)


async def _add_secret(conn: AsyncConnection, box: SecretBox, tenant_id: str, now: datetime) -> str:
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    await stored.add(conn, box, tenant_id, SIGNING, secret, secret[:SECRET_HINT_CHARS], now)
    return secret
