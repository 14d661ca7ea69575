"""`cadenza preview SCHEDULE`: the text, next dates, end and warnings of a schedule."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from api.cli.exits import fail
from engine.recurrence import (
    DstGap,
    DstRepeat,
    ScheduleError,
    parse_schedule,
    preview_json,
)
from engine.recurrence import preview as build_preview
from engine.recurrence.zones import parse_aware


@click.command()
@click.argument("schedule")
@click.option("--tz", "timezone", default="UTC", show_default=True, help="IANA time zone.")
@click.option("--after", help="ISO 8601 instant to list occurrences after [default: now].")
@click.option("--count", default=10, show_default=True, type=int, help="How many occurrences.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON the REST API returns.")
@click.option(
    "--dst-gap",
    type=click.Choice([m.value for m in DstGap]),
    default="shift",
    show_default=True,
    help="RRULE times inside a spring-forward gap.",
)
@click.option(
    "--dst-repeat",
    type=click.Choice([m.value for m in DstRepeat]),
    default="first",
    show_default=True,
    help="RRULE times inside a fall-back repeat.",
)
def preview(
    schedule: str, timezone: str, after: str | None, count: int, as_json: bool,
    dst_gap: str, dst_repeat: str,
) -> None:  # fmt: skip
    """Show what SCHEDULE (RRULE, cron, interval, instant or English) does."""
    try:
        after_at = _instant(after)
        parsed = parse_schedule(
            schedule,
            timezone,
            anchor=after_at,
            dst_gap=DstGap(dst_gap),
            dst_repeat=DstRepeat(dst_repeat),
        )
        result = build_preview(parsed, after_at, count)
    except ScheduleError as exc:
        fail(str(exc))
    data = preview_json(result)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(data["text"] + ("" if result.complete else "  [incomplete text]"))
    notes = {note["at"]: note["note"] for note in data["notes"]}
    for at in data["occurrences"]:
        click.echo(f"  {at}" + (f"  ({notes[at]})" if at in notes else ""))
    click.echo(
        f"ends: {data['ends'] or 'never'}" + (f" ({data['ends_by']})" if data["ends_by"] else "")
    )
    for warning in data["warnings"]:
        click.echo(f"warning: {warning}")


def _instant(text: str | None) -> datetime:
    """--after, as the API reads `after`: an instant with its offset (default: now)."""
    if text is None:
        return datetime.now(UTC).replace(second=0, microsecond=0)
    try:
        return parse_aware(text)
    except ValueError as exc:
        fail(f"--after: {exc}")
