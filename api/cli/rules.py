"""`cadenza rules …`: a tenant's rules on a running server, through the client library.

cadenza rules list --url http://127.0.0.1:8000 --key cdz_…
cadenza rules pause r_…
cadenza rules export > rules.json; cadenza rules import rules.json --key <another tenant's>
"""

from __future__ import annotations

import click
from cadenza_client import Client

from api.cli.remote import json_option, print_json, print_rows, remote
from api.cli.rule_transfer import export_rules, import_rules


@click.group()
def rules() -> None:
    """A tenant's rules on a server: list, get, pause, resume, trigger, delete, export, import.

    Every command takes --url ($CADENZA_URL) and --key ($CADENZA_KEY)."""


rules.add_command(export_rules, "export")
rules.add_command(import_rules, "import")


@rules.command("list")
@click.option("--enabled/--paused", default=None, help="Only enabled, or only paused, rules.")
@click.option("--search", help="Only rules whose name contains this text.")
@json_option
@remote
def list_rules(client: Client, enabled: bool | None, search: str | None, as_json: bool) -> None:
    """List the tenant's rules: id, state, next run, name and schedule."""
    found = list(client.rules.list(enabled=enabled, search=search))
    if as_json:
        print_json(found)
        return
    rows = (
        (r.id, "enabled" if r.enabled else "paused", r.next_run_at, r.name, r.schedule_text)
        for r in found
    )
    print_rows(rows, "no rules")


@rules.command("get")
@click.argument("rule_id")
@remote
def get_rule(client: Client, rule_id: str) -> None:
    """Print rule RULE_ID as JSON (its version is what --version of delete expects)."""
    print_json(client.rules.get(rule_id))


@rules.command("pause")
@click.argument("rule_id")
@remote
def pause_rule(client: Client, rule_id: str) -> None:
    """Stop planning runs of RULE_ID; its occurrences are recorded as paused."""
    paused = client.rules.pause(rule_id)
    click.echo(f"rule {paused.id} paused (version {paused.version})")


@rules.command("resume")
@click.argument("rule_id")
@remote
def resume_rule(client: Client, rule_id: str) -> None:
    """Plan runs of RULE_ID again from its next occurrence."""
    resumed = client.rules.resume(rule_id)
    click.echo(
        f"rule {resumed.id} resumed (version {resumed.version}), next run {resumed.next_run_at}"
    )


@rules.command("trigger")
@click.argument("rule_id")
@remote
def trigger_rule(client: Client, rule_id: str) -> None:
    """Run RULE_ID now, once, outside its schedule."""
    action = client.rules.trigger(rule_id)
    click.echo(f"action {action.id} of rule {rule_id} planned for {action.due_at.isoformat()}")


@rules.command("delete")
@click.argument("rule_id")
@click.option("--version", type=int, help="Delete only if the rule is still at this version.")
@remote
def delete_rule(client: Client, rule_id: str, version: int | None) -> None:
    """Delete RULE_ID; its pending runs are cancelled, its past runs stay readable."""
    client.rules.delete(rule_id, version=version)
    click.echo(f"rule {rule_id} deleted")
