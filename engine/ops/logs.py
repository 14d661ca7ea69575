"""Log lines as operators read them: one per record, as text or as a JSON object, carrying the
ids of the tenant, rule, action (with its occurrence id and attempt), run, event or trace a
record concerns.

The engine passes those ids with `extra=` (see `action_ids`); a formatter prints the ones a
record has, so a line can be found by id whichever format is on. A line never carries what a
script printed or returned, nor its error text (scripts may put anything there, secrets
included): runs keep those, readable by their tenant only. The formatters are installed by the
command that starts the process (`api/cli/common.py`), never at import time.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from engine.domain.due import DueAction
from engine.domain.occurrences import occurrence_id

#: The `extra=` keys a formatter prints, in this order, when a record carries them.
IDS = (
    "tenant_id",
    "rule_id",
    "action_id",
    "occurrence_id",
    "attempt",
    "run_id",
    "event_id",
    "trace_id",
)


def action_ids(action: DueAction, attempt: int | None = None) -> dict[str, Any]:
    """The ids of an action (and of one attempt at it), for `extra=`."""
    ids = {
        "tenant_id": action.tenant_id,
        "rule_id": action.rule_id,
        "action_id": action.id,
        "occurrence_id": occurrence_id(action.rule_id, action.id, action.scheduled_at),
    }
    return ids if attempt is None else ids | {"attempt": attempt}


def ids_of(record: logging.LogRecord) -> dict[str, Any]:
    return {key: value for key in IDS if (value := getattr(record, key, None)) is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `time` (ISO 8601, UTC, milliseconds), `level` (lower case),
    `logger`, `message`, the record's ids, and `exception` with the traceback if there is one.
    Newlines inside the message are escaped, so a record never spans lines."""

    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **ids_of(record),
        }
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            document["stack"] = self.formatStack(record.stack_info)
        return json.dumps(document, default=str)


class TextFormatter(logging.Formatter):
    """`<time> <LEVEL> <logger>: <message>`, then the record's ids as `key=value`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        ids = " ".join(f"{key}={value}" for key, value in ids_of(record).items())
        return f"{line} {ids}" if ids else line
