"""Where a tenant's scripts may send HTTP requests (`ctx.http.request`): a list of origins.

An entry is `scheme://host` or `scheme://host:port`; a host may start with `*.` to allow every
name under a domain (not the domain itself). Nothing else is allowed: an empty list (the
default) lets scripts call nothing. The tenant's admin sets it; the operator's policy bounds it
(which schemes, whether private addresses may be reached: `engine.runs.outbound_http`), and a name
on the list is still refused when it resolves to an address the policy forbids.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import InvalidInput
from tenants.tables import tenant_http_origins as origins

MAX_ENTRIES = 50
_ENTRY = re.compile(
    r"(?P<scheme>https?)://(?P<host>(\*\.)?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]+\])"
    r"(:(?P<port>[0-9]{1,5}))?/?"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def check_entry(entry: str, schemes: Collection[str]) -> str:
    """`entry` normalised (`scheme://host:port`), or InvalidInput saying what is allowed."""
    found = _ENTRY.fullmatch(entry.strip().lower())
    if found is None or not 0 < int(found["port"] or 1) < 65536:
        raise InvalidInput(
            f"HTTP allow-list entry {entry[:100]!r} is not an origin: write scheme://host or "
            "scheme://host:port (a host may start with '*.'), without a path"
        )
    if found["scheme"] not in schemes:
        raise InvalidInput(
            f"HTTP allow-list entry {entry[:100]!r}: the operator allows only "
            f"{', '.join(sorted(schemes))}"
        )
    port = int(found["port"] or _DEFAULT_PORTS[found["scheme"]])
    return f"{found['scheme']}://{found['host']}:{port}"


def allows(entries: Sequence[str], scheme: str, host: str, port: int) -> bool:
    """Whether the normalised `entries` allow `scheme://host:port` (host lower-case IDNA)."""
    for entry in entries:
        allowed_scheme, rest = entry.split("://", 1)
        allowed_host, allowed_port = rest.rsplit(":", 1)
        if allowed_scheme != scheme or int(allowed_port) != port:
            continue
        allowed_host = allowed_host.strip("[]")
        if allowed_host == host or (
            allowed_host.startswith("*.") and host.endswith(allowed_host[1:])
        ):
            return True
    return False


async def get(conn: AsyncConnection, tenant_id: str) -> list[str]:
    """The tenant's allow-list (normalised entries)."""
    query = select(origins.c.origin).where(origins.c.tenant_id == tenant_id)
    return sorted((await conn.execute(query)).scalars())


async def put(
    conn: AsyncConnection, tenant_id: str, entries: Sequence[str], schemes: Collection[str]
) -> list[str]:
    """Replace the tenant's allow-list; InvalidInput (nothing changed) for any bad entry."""
    if len(entries) > MAX_ENTRIES:
        raise InvalidInput(f"an HTTP allow-list holds at most {MAX_ENTRIES} entries")
    normalised = sorted({check_entry(entry, schemes) for entry in entries})
    await conn.execute(delete(origins).where(origins.c.tenant_id == tenant_id))
    if normalised:
        rows = [{"tenant_id": tenant_id, "origin": origin} for origin in normalised]
        await conn.execute(insert(origins), rows)
    return normalised
