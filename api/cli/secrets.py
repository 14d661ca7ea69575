"""`cadenza secrets …`: the operator key that seals stored secrets, and rotating it.

`rotate` puts a new key first in the key file (the old ones stay, to open what they sealed),
then re-seals every stored secret with it in small transactions, then says which keys are
still needed. It is safe to stop at any point: every secret stays sealed by a key in the file,
and `reseal` finishes the work (it is also the command to run after putting a new key first
in `CADENZA_SECRET_KEYS`). Keys no secret uses any more leave the file at the next `reseal`.
"""

from __future__ import annotations

from pathlib import Path

import click

from api.cli.common import db_option, open_migrated, run_async, settings_from
from api.secret_keys import key_file_path, open_secret_box
from api.settings import Settings
from tenants import secrets
from tenants.key_file import read_ring, write_ring
from tenants.secret_box import KeyRing, key_id, new_key

batch_option = click.option(
    "--batch-size",
    type=click.IntRange(1, 10_000),
    default=500,
    show_default=True,
    help="Secrets re-sealed per transaction.",
)


@click.group()
def secrets_group() -> None:
    """Manage the operator key that seals stored secrets (webhook signing secrets)."""


@secrets_group.command("new-key")
@click.option("--file", "path", type=click.Path(path_type=Path), help="Write a new key file.")
def new_key_command(path: Path | None) -> None:
    """Print a new operator key (for CADENZA_SECRET_KEYS), or write a new key file."""
    if path is None:
        click.echo(new_key())
        return
    if path.exists():
        raise click.ClickException(f"{path} exists; `cadenza secrets rotate` adds a key to it")
    write_ring(path, KeyRing((new_key(),)))
    click.echo(f"wrote a new operator key file {path}; point CADENZA_SECRET_KEY_FILE at it")


@secrets_group.command()
@db_option
@batch_option
@run_async
async def rotate(database_url: str | None, batch_size: int) -> None:
    """Put a new key first in the key file, then re-seal every stored secret with it."""
    settings = settings_from(database_url=database_url)
    path = key_file_path(settings)
    if path is None:
        raise click.ClickException(
            "the keys come from CADENZA_SECRET_KEYS: put a new key (`cadenza secrets new-key`) "
            "first there on every node, restart them, then run `cadenza secrets reseal`"
        )
    old = read_ring(path)
    write_ring(path, KeyRing((new_key(), *old.keys)))
    click.echo(f"key {read_ring(path).primary_id} now seals; re-sealing stored secrets")
    await _reseal(settings, batch_size, keep=old.primary_id)


@secrets_group.command()
@db_option
@batch_option
@run_async
async def reseal(database_url: str | None, batch_size: int) -> None:
    """Re-seal every stored secret with the first key (finishes an interrupted rotation)."""
    await _reseal(settings_from(database_url=database_url), batch_size, keep=None)


@secrets_group.command()
@db_option
@run_async
async def status(database_url: str | None) -> None:
    """Show which keys seal how many stored secrets."""
    settings = settings_from(database_url=database_url)
    used = await _key_ids_in_use(settings)
    ring = open_secret_box(settings).ring
    for kid in ring.ids:
        role = "seals" if kid == ring.primary_id else "opens"
        click.echo(f"key {kid} ({role}): {used.pop(kid, 0)} secrets")
    for kid, count in used.items():
        click.echo(f"key {kid} (MISSING: give this process that key): {count} secrets")


async def _reseal(settings: Settings, batch_size: int, keep: str | None) -> None:
    """Re-seal every row, a batch per transaction; then drop from the key file the keys no
    secret uses (except `keep`: a server that read the file just before the rotation may
    still seal with it for a moment; the next `reseal` drops it)."""
    box = open_secret_box(settings)
    db = await open_migrated(settings.database_url)
    try:
        after_id = 0
        while after_id >= 0:
            async with db.begin() as conn:
                after_id = await secrets.reseal_batch(conn, box, after_id, batch_size)
    finally:
        await db.dispose()
    used = await _key_ids_in_use(settings)
    click.echo(f"stored secrets by key: {used or 'none'}; key {box.ring.primary_id} seals")
    path = key_file_path(settings)
    if path is not None:
        needed = tuple(k for k in box.ring.keys if key_id(k) in {box.ring.primary_id, keep, *used})
        if needed != box.ring.keys:
            write_ring(path, KeyRing(needed))
            click.echo(f"removed {len(box.ring.keys) - len(needed)} unused keys from {path}")


async def _key_ids_in_use(settings: Settings) -> dict[str, int]:
    db = await open_migrated(settings.database_url)
    try:
        async with db.connect() as conn:
            return await secrets.key_ids_in_use(conn)
    finally:
        await db.dispose()
