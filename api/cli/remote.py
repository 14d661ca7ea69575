"""What the remote commands share (`cadenza rules|actions|runs …`): they act on a running
server through the client library (`cadenza_client`), with `--url` and `--key`.

Every error of the API or the connection becomes one line on stderr and exit 2, with the
problem's type and the offending field; nothing here imports the server's own stack.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import click
from cadenza_client import ApiProblem, CadenzaError, Client
from pydantic import BaseModel

from api.cli.exits import fail

T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8000"

url_option = click.option(
    "--url",
    envvar="CADENZA_URL",
    default=DEFAULT_URL,
    show_default=True,
    help="The server's base URL ($CADENZA_URL).",
)
key_option = click.option(
    "--key",
    envvar="CADENZA_KEY",
    required=True,
    help="A tenant API key, cdz_… ($CADENZA_KEY).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def explain(error: CadenzaError) -> str:
    """One line: the problem's status, type, field and detail (or the connection's failure)."""
    if isinstance(error, ApiProblem):
        where = f"{error.field}: " if error.field and error.field not in error.detail else ""
        return f"{error.status} {error.type}: {where}{error.detail}"
    return str(error)


def remote(command: Callable[..., T]) -> Callable[..., T]:
    """Add `--url` and `--key`; the command gets a connected `client` instead of them, and
    any error of the client library ends it with one line and exit 2."""

    @functools.wraps(command)
    def run(*args: Any, url: str, key: str, **kwargs: Any) -> T:
        try:
            with Client(url, key) as client:
                return command(*args, client=client, **kwargs)
        except CadenzaError as error:
            fail(explain(error))

    return key_option(url_option(run))


def print_json(value: BaseModel | Sequence[BaseModel]) -> None:
    """A record, or a list of them, as indented JSON."""
    if isinstance(value, BaseModel):
        click.echo(value.model_dump_json(indent=2))
    else:
        click.echo(json.dumps([v.model_dump(mode="json") for v in value], indent=2))


def print_rows(rows: Iterable[Sequence[Any]], empty: str) -> None:
    """Tab-separated lines (instants in ISO 8601); `empty` on stderr when there are none."""
    printed = False
    for row in rows:
        click.echo("\t".join(_cell(value) for value in row))
        printed = True
    if not printed:
        click.echo(empty, err=True)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)
