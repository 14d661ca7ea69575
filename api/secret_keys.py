"""Where a process finds the operator key that seals stored secrets.

In order: `CADENZA_SECRET_KEYS` (keys separated by commas, the first seals; for fleets and
secret managers), else the key file `CADENZA_SECRET_KEY_FILE`, else, on SQLite, the file
`<database>.key` beside the database, created with a new key on the first start (so the
quickstart's `cadenza serve` needs nothing). PostgreSQL has no default: every node must hold
the same key, so the operator gives it (a node that generated its own could not open the
others' secrets).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from api.settings import Settings
from tenants import secrets
from tenants.db import is_sqlite, normalise_url, sqlite_path
from tenants.key_file import ensure_key_file, read_ring
from tenants.secret_box import SecretBox, SecretKeyError, ring_of


def key_file_path(settings: Settings) -> Path | None:
    """The key file this process uses (None when the keys come from the environment)."""
    if settings.secret_keys:
        return None
    if settings.secret_key_file is not None:
        return settings.secret_key_file
    url = normalise_url(settings.database_url)
    if not is_sqlite(url):
        raise SecretKeyError(
            "no operator key for a PostgreSQL database: set CADENZA_SECRET_KEY_FILE (a file "
            "made by `cadenza secrets new-key --file PATH`) or CADENZA_SECRET_KEYS, the same on "
            "every node (see docs/operations.md, 'Secrets and the operator key')"
        )
    path = sqlite_path(url).expanduser()
    return path.with_name(path.name + ".key")


def open_secret_box(settings: Settings) -> SecretBox:
    """The box of this process's operator keys; a key file that does not exist yet is created."""
    path = key_file_path(settings)
    if path is None:
        return SecretBox(ring_of((settings.secret_keys or "").split(",")))
    return SecretBox(ensure_key_file(path), reload=lambda: read_ring(path))


async def seal_legacy_secrets(db: AsyncEngine, box: SecretBox) -> int:
    """Seal the plain-text secrets an upgrade moved aside (migration 0007); how many."""
    async with db.begin() as conn:
        return await secrets.seal_legacy(conn, box)
