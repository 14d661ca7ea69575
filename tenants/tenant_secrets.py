"""A tenant's named secrets for its scripts: written through the API, never read back by it.

Each is a `tenant_secrets` row of purpose `script` with a name, sealed by the operator key
(`SecretBox`) to its tenant and name, so a copied row opens nowhere else, and re-sealed in
place by `cadenza secrets rotate` like every other row. The API sets, lists (names and
when they were set, nothing else) and deletes them; only the engine opens one, when a run
asks for it (`engine.runs.script_secrets`), and then redacts its value from everything the run
leaves behind (`engine.runs.redaction`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import InvalidInput
from tenants.secret_box import SecretBox
from tenants.secrets import SecretPurpose, context_of
from tenants.tables import tenant_secrets
from tenants.upsert import upsert

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
#: Shorter values could not be redacted from a run's output without mangling it.
MIN_VALUE_CHARS = 8
MAX_VALUE_BYTES = 4096
MAX_SECRETS = 100
#: What a secret's value becomes in a run's output (`engine.runs.redaction`): as long as the
#: shortest value, so redacting a whole value never lengthens text; no value may be it.
REDACTED = "[secret]"
_SCRIPT = str(SecretPurpose.SCRIPT)


@dataclass(frozen=True)
class SecretName:
    """A secret as the API shows it: its name and when its value was last set."""

    name: str
    updated_at: datetime


def check_name(name: str) -> str:
    """`name` if it is a valid secret name, else InvalidInput saying what is allowed."""
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidInput(
            f"secret name {name[:80]!r} is not valid: use 1..64 letters, digits, '_', '.' or "
            "'-', starting with a letter"
        )
    return name


def check_value(name: str, value: str) -> str:
    """`value` if a script may hold it and its runs' output can be redacted of it."""
    if "\x00" in value or len(value.encode("utf-8", "surrogatepass")) > MAX_VALUE_BYTES:
        raise InvalidInput(
            f"secret {name!r}: the value must be text of at most "
            f"{MAX_VALUE_BYTES} UTF-8 bytes, without NUL"
        )
    if len(value) < MIN_VALUE_CHARS:
        raise InvalidInput(
            f"secret {name!r}: the value must be at least {MIN_VALUE_CHARS} characters, so "
            "that it can be redacted from a run's output without mangling it"
        )
    if value == REDACTED:
        raise InvalidInput(f"secret {name!r}: the value cannot be {REDACTED!r}, the redaction mark")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"secret {name!r}: the value is not valid Unicode text") from None
    return value


def _mine(tenant_id: str) -> ColumnElement[bool]:
    return (tenant_secrets.c.tenant_id == tenant_id) & (tenant_secrets.c.purpose == _SCRIPT)


async def put(
    conn: AsyncConnection, box: SecretBox, tenant_id: str, name: str, value: str, now: datetime
) -> SecretName:
    """Set (or replace) the tenant's secret `name`; InvalidInput for a bad name or value, or
    when the tenant already holds MAX_SECRETS others."""
    check_value(check_name(name), value)
    others = select(func.count()).where(_mine(tenant_id), tenant_secrets.c.name != name)
    if int((await conn.execute(others)).scalar_one()) >= MAX_SECRETS:
        raise InvalidInput(
            f"tenant {tenant_id} already has {MAX_SECRETS} secrets: delete one first"
        )
    row = {
        "tenant_id": tenant_id,
        "purpose": _SCRIPT,
        "name": name,
        "sealed": box.seal(value, context_of(tenant_id, SecretPurpose.SCRIPT, name)),
        "hint": "",
        "created_at": now,
    }
    await upsert(
        conn, tenant_secrets, [row], ("tenant_id", "purpose", "name"), ("sealed", "created_at")
    )
    return SecretName(name, now)


async def remove(conn: AsyncConnection, tenant_id: str, name: str) -> bool:
    """Delete the tenant's secret `name`; whether there was one."""
    query = delete(tenant_secrets).where(_mine(tenant_id), tenant_secrets.c.name == name)
    return bool((await conn.execute(query)).rowcount)


async def names(conn: AsyncConnection, tenant_id: str) -> list[SecretName]:
    """The tenant's secrets by name; no value is opened."""
    query = (
        select(tenant_secrets.c.name, tenant_secrets.c.created_at)
        .where(_mine(tenant_id))
        .order_by(tenant_secrets.c.name)
    )
    return [SecretName(name, at) for name, at in await conn.execute(query)]


async def read(conn: AsyncConnection, box: SecretBox, tenant_id: str, name: str) -> str | None:
    """The value of the tenant's secret `name`, opened (None when there is none)."""
    query = select(tenant_secrets.c.sealed).where(_mine(tenant_id), tenant_secrets.c.name == name)
    sealed = (await conn.execute(query)).scalar_one_or_none()
    if sealed is None:
        return None
    return box.open(sealed, context_of(tenant_id, SecretPurpose.SCRIPT, name))
