"""Signing webhook deliveries: with every signing secret of the tenant that is live now.

`X-Cadenza-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, with one
`v1=` per live secret, newest first: during the overlap window after a rotation both the new
and the previous secret sign, so a receiver that accepts any `v1` matching its secret keeps
accepting deliveries while it rolls over. The secrets are opened from their sealed rows
(`tenants.secrets`) for each batch, never cached.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from tenants import secrets
from tenants.secret_box import SecretBox, SecretKeyError
from tenants.secrets import SecretPurpose

SIGNING = SecretPurpose.WEBHOOK_SIGNING
SIGNATURE_HEADER = "X-Cadenza-Signature"


@dataclass(frozen=True)
class Signing:
    """What a tenant's deliveries are signed with now, or why they cannot be signed."""

    secrets: tuple[str, ...] = ()
    problem: str | None = None


def sign(signing_secrets: Sequence[str], timestamp: int, body: bytes) -> str:
    signed = f"{timestamp}.".encode() + body
    digests = [hmac.new(s.encode(), signed, hashlib.sha256).hexdigest() for s in signing_secrets]
    return ",".join([f"t={timestamp}", *(f"v1={d}" for d in digests)])


def signed_headers(signing_secrets: Sequence[str], now: datetime, body: bytes) -> dict[str, str]:
    """A JSON body's headers, with its signature by every live secret."""
    signature = sign(signing_secrets, int(now.timestamp()), body)
    return {"Content-Type": "application/json", SIGNATURE_HEADER: signature}


async def signing_for(
    conn: AsyncConnection, box: SecretBox | None, tenant_ids: set[str], now: datetime
) -> dict[str, Signing]:
    """Each tenant's live signing secrets, newest first (one tenant's key problem is its own)."""
    return {tenant_id: await _tenant_signing(conn, box, tenant_id, now) for tenant_id in tenant_ids}


async def _tenant_signing(
    conn: AsyncConnection, box: SecretBox | None, tenant_id: str, now: datetime
) -> Signing:
    if box is None:
        return Signing(problem="this node has no operator key to open signing secrets with")
    try:
        live = await secrets.live(conn, box, [tenant_id], SIGNING, now)
    except SecretKeyError as exc:
        return Signing(problem=f"cannot open the signing secret: {exc}")
    values = tuple(s.value for s in live.get(tenant_id, []))
    if not values:
        return Signing(problem="the tenant has no signing secret: POST /v1/webhook/secret")
    return Signing(secrets=values)
