"""`cadenza script-secrets …`: a tenant's secrets for its scripts, on a running server.

A value is read from standard input (never an argument: arguments end up in shell histories
and process listings), and no command prints one: the server never gives a value back.
"""

from __future__ import annotations

import sys

import click
from cadenza_client import Client

from api.cli.exits import fail
from api.cli.remote import json_option, print_json, print_rows, remote


@click.group("script-secrets")
def script_secrets() -> None:
    """The tenant's secrets, read by scripts as ctx.secrets.get(NAME); write-only.

    Every command takes --url ($CADENZA_URL) and --key ($CADENZA_KEY)."""


@script_secrets.command("put")
@click.argument("name")
@remote
def put_secret(client: Client, name: str) -> None:
    """Set secret NAME to the text on standard input (one trailing newline dropped)."""
    value = sys.stdin.read().removesuffix("\n")
    if not value:
        fail(
            "give the secret's value on standard input, e.g. `cadenza script-secrets put "
            "stripe < key.txt`"
        )
    stored = client.secrets.put(name, value)
    click.echo(f"secret {stored.name} set at {stored.updated_at.isoformat()}")


@script_secrets.command("list")
@json_option
@remote
def list_secrets(client: Client, as_json: bool) -> None:
    """List the secrets' names and when each was set (never a value)."""
    found = client.secrets.list()
    if as_json:
        print_json(found)
        return
    print_rows(((s.name, s.updated_at) for s in found), "no secrets")


@script_secrets.command("delete")
@click.argument("name")
@remote
def delete_secret(client: Client, name: str) -> None:
    """Delete secret NAME; scripts asking for it get None from then on."""
    client.secrets.delete(name)
    click.echo(f"secret {name} deleted")
