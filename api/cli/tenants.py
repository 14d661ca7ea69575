"""`cadenza tenant …` and `cadenza key …`: operator commands for tenants and their API keys."""

from __future__ import annotations

import json

import click

from api.cli.common import db_option, migrated_database, run_async
from tenants.keys import Role, create_key, list_keys, revoke_key
from tenants.registry import create_tenant, find_tenant, list_tenants

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
_ROLES = click.Choice([r.value for r in Role])


@click.group()
def tenant() -> None:
    """Create and list tenants."""


@tenant.command("create")
@click.argument("name")
@click.option("--role", type=_ROLES, default="admin", show_default=True, help="First key's role.")
@db_option
@json_option
@run_async
async def tenant_create(name: str, role: str, database_url: str | None, as_json: bool) -> None:
    """Create tenant NAME and print its id and a new API key (shown once)."""
    async with migrated_database(database_url) as engine, engine.begin() as conn:
        created, issued = await create_tenant(conn, name, Role(role))
    if as_json:
        click.echo(json.dumps({"tenant_id": created.id, "name": name, "api_key": issued.secret}))
    else:
        click.echo(f"tenant {created.id} ({name}) created")
        click.echo(f"API key ({role}, shown once): {issued.secret}")


@tenant.command("list")
@db_option
@json_option
@run_async
async def tenant_list(database_url: str | None, as_json: bool) -> None:
    """List every tenant."""
    async with migrated_database(database_url) as engine, engine.connect() as conn:
        found = await list_tenants(conn, limit=1_000_000)
    if as_json:
        rows = [{"tenant_id": t.id, "name": t.name, "status": t.status.value} for t in found]
        click.echo(json.dumps(rows))
        return
    for t in found:
        click.echo(f"{t.id}\t{t.name}\t{t.status.value}")
    if not found:
        click.echo("no tenants yet: create one with `cadenza tenant create NAME`", err=True)


@click.group()
def key() -> None:
    """Create and revoke API keys."""


@key.command("create")
@click.argument("tenant_ref", metavar="TENANT")
@click.option("--role", type=_ROLES, default="admin", show_default=True)
@click.option("--name", default="", help="A label for the key.")
@db_option
@json_option
@run_async
async def key_create(
    tenant_ref: str, role: str, name: str, database_url: str | None, as_json: bool
) -> None:
    """Create an API key for TENANT (id or name); the key is shown once."""
    async with migrated_database(database_url) as engine, engine.begin() as conn:
        found = await find_tenant(conn, tenant_ref)
        issued = await create_key(conn, found.id, Role(role), name)
    if as_json:
        click.echo(
            json.dumps({"key_id": issued.key.id, "tenant_id": found.id, "api_key": issued.secret})
        )
    else:
        click.echo(f"key {issued.key.id} ({role}) for {found.name}, shown once: {issued.secret}")


@key.command("revoke")
@click.argument("key_id")
@db_option
@run_async
async def key_revoke(key_id: str, database_url: str | None) -> None:
    """Revoke API key KEY_ID; requests with it are refused from now on."""
    async with migrated_database(database_url) as engine, engine.begin() as conn:
        revoked = await revoke_key(conn, key_id)
    click.echo(f"key {revoked.id} revoked")


@key.command("list")
@click.argument("tenant_ref", metavar="TENANT")
@db_option
@run_async
async def key_list(tenant_ref: str, database_url: str | None) -> None:
    """List TENANT's API keys (prefixes only; secrets are never stored)."""
    async with migrated_database(database_url) as engine, engine.connect() as conn:
        found = await find_tenant(conn, tenant_ref)
        keys = await list_keys(conn, found.id)
    for k in keys:
        state = "revoked" if k.revoked_at else "active"
        click.echo(f"{k.id}\t{k.prefix}…\t{k.role.value}\t{state}\t{k.name}")
