"""`cadenza capabilities …`: the operator grants, revokes and lists a tenant's capabilities
(those of the registry in `CADENZA_CAPABILITIES_FILE`), on the database directly."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from api.capability_registry import capability_policy
from api.cli.common import db_option, migrated_database, run_async, settings_from
from api.cli.exits import fail
from tenants import capability_grants
from tenants.registry import find_tenant

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group()
def capabilities() -> None:
    """Grant tenants the capabilities of the operator's registry (ctx.call)."""


@capabilities.command("grant")
@click.argument("tenant_ref", metavar="TENANT")
@click.argument("name")
@db_option
@run_async
async def grant(tenant_ref: str, name: str, database_url: str | None) -> None:
    """Let TENANT's (id or name) scripts call capability NAME."""
    registered = capability_policy(settings_from(database_url=database_url)).by_name
    if name not in registered:
        known = ", ".join(sorted(registered)) or "none (set CADENZA_CAPABILITIES_FILE)"
        fail(f"no capability {name!r} in the registry; registered: {known}")
    async with migrated_database(database_url) as engine, engine.begin() as conn:
        tenant = await find_tenant(conn, tenant_ref)
        await capability_grants.grant(conn, tenant.id, name, datetime.now(UTC))
    click.echo(f"granted {name} to tenant {tenant.id} ({tenant.name})")


@capabilities.command("revoke")
@click.argument("tenant_ref", metavar="TENANT")
@click.argument("name")
@db_option
@run_async
async def revoke(tenant_ref: str, name: str, database_url: str | None) -> None:
    """Take capability NAME back from TENANT (id or name)."""
    async with migrated_database(database_url) as engine, engine.begin() as conn:
        tenant = await find_tenant(conn, tenant_ref)
        await capability_grants.revoke(conn, tenant.id, name)
    click.echo(f"revoked {name} from tenant {tenant.id} ({tenant.name})")


@capabilities.command("list")
@click.argument("tenant_ref", metavar="TENANT")
@db_option
@json_option
@run_async
async def list_grants(tenant_ref: str, database_url: str | None, as_json: bool) -> None:
    """TENANT's grants; a name the registry no longer has is marked unregistered."""
    registered = capability_policy(settings_from(database_url=database_url)).by_name
    async with migrated_database(database_url) as engine, engine.connect() as conn:
        tenant = await find_tenant(conn, tenant_ref)
        grants = await capability_grants.list_grants(conn, tenant.id)
    rows = [
        {"name": g.name, "granted_at": g.granted_at.isoformat(), "registered": g.name in registered}
        for g in grants
    ]
    if as_json:
        click.echo(json.dumps(rows))
        return
    for row in rows:
        mark = "" if row["registered"] else "\t(not in the registry)"
        click.echo(f"{row['name']}\t{row['granted_at']}{mark}")
    if not rows:
        click.echo(f"tenant {tenant.id} holds no capability", err=True)
