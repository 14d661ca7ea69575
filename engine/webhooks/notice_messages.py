"""What a notification says on each channel: a signed JSON document on the tenant webhook, a
`{"text": ...}` post on a Slack-compatible incoming webhook, a plain-text email. A route with a
digest gathers its due notifications into one message; without, each is its own."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import RowMapping

from engine.domain.notifications import NotificationChannel, NotificationEvent

_HEADLINES = {
    NotificationEvent.FAILED: "failed",
    NotificationEvent.RECOVERED: "recovered: it succeeded again",
    NotificationEvent.SKIPPED: "skipped an occurrence",
    NotificationEvent.EXPIRED: "expired before it could run",
}


@dataclass(frozen=True)
class Message:
    """One message to send to one route: a notification, or the route's digest of several."""

    route_id: int
    tenant_id: str
    channel: NotificationChannel
    #: The email address or the incoming-webhook URL ("" for the tenant webhook).
    target: str
    digest: bool
    rows: tuple[RowMapping, ...]

    @property
    def ids(self) -> list[int]:
        return [row["id"] for row in self.rows]


def messages_of(rows: Sequence[RowMapping]) -> list[Message]:
    """The held rows as messages: a digest route's rows together, the others one by one."""
    digests: dict[int, list[RowMapping]] = {}
    singles: list[list[RowMapping]] = []
    for row in rows:
        if row["digest_minutes"] is None:
            singles.append([row])
        else:
            digests.setdefault(row["route_id"], []).append(row)
    return [_message(group) for group in [*singles, *digests.values()]]


def _message(rows: list[RowMapping]) -> Message:
    first = rows[0]
    channel = NotificationChannel(first["channel"])
    digest = first["digest_minutes"] is not None
    return Message(
        first["route_id"], first["tenant_id"], channel, first["target"], digest, tuple(rows)
    )


def webhook_body(message: Message) -> bytes:
    document = {
        "type": "notifications",
        "route_id": message.route_id,
        "digest": message.digest,
        "notifications": [_document(row) for row in message.rows],
    }
    return json.dumps(document, separators=(",", ":")).encode()


def _document(row: RowMapping) -> dict[str, Any]:
    return {
        "id": row["id"],
        "event": row["event"],
        "rule_id": row["rule_id"],
        "action_id": row["action_id"],
        "run_id": row["run_id"],
        "created_at": row["created_at"].isoformat(),
        "payload": row["payload"],
    }


def slack_body(message: Message) -> bytes:
    """Slack's `text`, with `&`, `<` and `>` escaped as Slack asks: a script's error cannot
    mention `<!channel>` or make a link."""
    text = text_of(message).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return json.dumps({"text": text}).encode()


def subject_of(message: Message) -> str:
    if message.digest:
        return f"[Cadenza] {len(message.rows)} notifications"
    return f"[Cadenza] {_subject_line(message.rows[0])}"


def text_of(message: Message) -> str:
    lines = [line_of(row) for row in message.rows]
    if message.digest:
        lines.insert(0, f"{len(message.rows)} notifications since the last digest:")
    return "\n".join(lines)


def line_of(row: RowMapping) -> str:
    """One notification in a line: what, which rule, when, and why."""
    payload = row["payload"]
    detail = payload.get("error") or payload.get("reason")
    why = f": {detail}" if detail else ""
    return f"{_subject_line(row)} (scheduled {payload['scheduled_at']}){why}"


def _subject_line(row: RowMapping) -> str:
    name = row["payload"].get("rule_name")
    if row["rule_id"] is None:
        what = f"one-off action {row['action_id']}"
    else:
        what = f"rule {name!r} ({row['rule_id']})" if name else f"rule {row['rule_id']}"
    return f"{what} {_HEADLINES[NotificationEvent(row['event'])]}"
