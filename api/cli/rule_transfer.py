"""`cadenza rules export` and `cadenza rules import`: a tenant's rules as a JSON file
(`cadenza_client.models.transfer.RulesExport`), to copy them into another tenant or server.

An import checks every rule, and the tenant's rule quota, before it creates any: a file with
one bad rule changes nothing and names the rule and field to fix.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import IO

import click
from cadenza_client import Client, InvalidInput, NewRule
from cadenza_client.models.transfer import RulesExport
from pydantic import ValidationError

from api.cli.exits import fail
from api.cli.remote import explain, remote


@click.command()
@click.option(
    "--output", "-o", type=click.File("w"), default="-", help="File to write [default: stdout]."
)
@remote
def export_rules(client: Client, output: IO[str]) -> None:
    """Write every rule of the tenant as JSON (definitions only: no ids, versions or runs)."""
    exported = RulesExport(
        exported_at=datetime.now(UTC),
        source=client.tenant.get().name,
        rules=tuple(rule.as_new() for rule in client.rules.list()),
    )
    output.write(exported.model_dump_json(indent=2) + "\n")
    click.echo(f"exported {len(exported.rules)} rules", err=True)


@click.command()
@click.argument("source", type=click.File("r"))
@click.option("--dry-run", is_flag=True, help="Check every rule, create none.")
@remote
def import_rules(client: Client, source: IO[str], dry_run: bool) -> None:
    """Create the rules of SOURCE (a file of `cadenza rules export`, or - for stdin)."""
    exported = _read(source)
    _check(client, exported.rules)
    if dry_run:
        click.echo(f"{len(exported.rules)} rules are valid; none created (--dry-run)")
        return
    for number, rule in enumerate(exported.rules, start=1):
        try:
            created = client.rules.create(rule)
        except InvalidInput as error:
            fail(
                f"rule {number} ({rule.name!r}) not created, rules before it were: {explain(error)}"
            )
        click.echo(f"created {created.id}\t{created.name}")


def _read(source: IO[str]) -> RulesExport:
    try:
        return RulesExport.model_validate_json(source.read())
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        fail(f"{source.name} is not a rules export: {where}: {first['msg']}")


def _check(client: Client, rules: tuple[NewRule, ...]) -> None:
    """Every rule as a save would check it, and room for all of them under the quota."""
    refused = []
    for number, rule in enumerate(rules, start=1):
        try:
            client.rules.validate(rule)
        except InvalidInput as error:
            refused.append(f"rule {number} ({rule.name!r}): {explain(error)}")
    if refused:
        fail("nothing imported; fix these rules first:\n  " + "\n  ".join(refused))
    room = client.tenant.get().quotas.max_rules - sum(1 for _ in client.rules.list())
    if len(rules) > room:
        fail(f"nothing imported: {len(rules)} rules, but the tenant's quota leaves room for {room}")
