"""`cadenza actions …` and `cadenza runs …`: the queue and what ran, on a running server."""

from __future__ import annotations

import itertools
import json
from datetime import datetime
from typing import IO, Any

import click
from cadenza_client import ActionStatus, Client, Outcome, Runtime

from api.cli.exits import fail
from api.cli.remote import json_option, print_json, print_rows, remote

limit_option = click.option(
    "--limit", type=click.IntRange(min=1), default=50, show_default=True, help="At most this many."
)


class Instant(click.ParamType):
    """An ISO 8601 instant with an offset, as the API takes it."""

    name = "INSTANT"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is not an ISO 8601 instant, e.g. 2030-01-01T09:00:00+01:00")
        if parsed.tzinfo is None:
            self.fail(f"{value!r} has no offset: add one, e.g. +01:00 or Z")
        return parsed


@click.group()
def actions() -> None:
    """A tenant's actions on a server: submit one-offs, list, cancel.

    Every command takes --url ($CADENZA_URL) and --key ($CADENZA_KEY)."""


@actions.command("submit")
@click.option("--at", "run_at", type=Instant(), required=True, help="When to run (ISO 8601).")
@click.option("--code-file", type=click.File("r"), help="The script to run (- for stdin).")
@click.option("--rule", "rule_id", help="Run this rule's script instead.")
@click.option("--idempotency-key", help="Submitting again with this key updates the same action.")
@click.option(
    "--runtime", type=click.Choice([r.value for r in Runtime]), help="The script's runtime."
)
@click.option("--params", help="JSON object handed to the script.")
@json_option
@remote
def submit_action(
    client: Client,
    run_at: datetime,
    code_file: IO[str] | None,
    rule_id: str | None,
    idempotency_key: str | None,
    runtime: str | None,
    params: str | None,
    as_json: bool,
) -> None:
    """Plan a one-off run at --at, of --code-file or of --rule's script."""
    if (code_file is None) == (rule_id is None):
        fail("give exactly one of --code-file and --rule")
    submitted = client.actions.submit(
        run_at,
        code=code_file.read() if code_file else None,
        rule=rule_id,
        key=idempotency_key,
        runtime=Runtime(runtime) if runtime else None,
        params=_params(params),
    )
    if as_json:
        print_json(submitted)
    else:
        click.echo(f"action {submitted.id} {submitted.status} due {submitted.due_at.isoformat()}")


def _params(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        fail(f"--params is not JSON: {error}")
    if not isinstance(value, dict):
        fail('--params must be a JSON object, e.g. \'{"to": "ops@example.com"}\'')
    return value


@actions.command("list")
@click.option("--status", type=click.Choice([s.value for s in ActionStatus]), help="Only these.")
@click.option("--rule", "rule_id", help="Only this rule's actions.")
@limit_option
@json_option
@remote
def list_actions(
    client: Client, status: str | None, rule_id: str | None, limit: int, as_json: bool
) -> None:
    """List actions, newest first: id, status, due time, rule and key."""
    found = list(
        itertools.islice(
            client.actions.list(
                status=ActionStatus(status) if status else None, rule=rule_id, limit=min(limit, 200)
            ),
            limit,
        )
    )
    if as_json:
        print_json(found)
        return
    print_rows(((a.id, a.status, a.due_at, a.rule_id, a.key) for a in found), "no actions")


@actions.command("cancel")
@click.argument("action_id", type=int)
@remote
def cancel_action(client: Client, action_id: int) -> None:
    """Withdraw ACTION_ID before its run starts."""
    click.echo(f"action {action_id} {client.actions.cancel(action_id).status}")


@click.group()
def runs() -> None:
    """A tenant's runs on a server: list, get.

    Every command takes --url ($CADENZA_URL) and --key ($CADENZA_KEY)."""


@runs.command("list")
@click.option("--rule", "rule_id", help="Only this rule's runs.")
@click.option("--outcome", type=click.Choice([o.value for o in Outcome]), help="Only these.")
@click.option("--since", type=Instant(), help="Only runs started at or after (ISO 8601).")
@limit_option
@json_option
@remote
def list_runs(
    client: Client,
    rule_id: str | None,
    outcome: str | None,
    since: datetime | None,
    limit: int,
    as_json: bool,
) -> None:
    """List runs, newest first: id, outcome, start, duration, rule and action."""
    found = list(
        itertools.islice(
            client.runs.list(
                rule=rule_id,
                outcome=Outcome(outcome) if outcome else None,
                since=since,
                limit=min(limit, 200),
            ),
            limit,
        )
    )
    if as_json:
        print_json(found)
        return
    rows = (
        (r.id, r.outcome, r.started_at, f"{r.duration_ms:.1f} ms", r.rule_id, r.action_id)
        for r in found
    )
    print_rows(rows, "no runs")


@runs.command("get")
@click.argument("run_id", type=int)
@remote
def get_run(client: Client, run_id: int) -> None:
    """Print run RUN_ID as JSON: outcome, result, error, output and resources."""
    print_json(client.runs.get(run_id))
