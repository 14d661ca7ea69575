"""The log formatters: every record one line, JSON or text, with the ids passed as `extra=`."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from support.due_actions import due_action

from engine.ops.logs import JsonFormatter, TextFormatter, action_ids

ACTION = due_action(
    id=7, tenant_id="t-1", rule_id=None, scheduled_at=datetime(2030, 1, 7, 9, tzinfo=UTC)
)


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("cadenza.test-log-records")
    logger.propagate = False
    try:
        yield logger
    finally:
        logger.handlers.clear()
        logger.propagate = True


def _lines(logger: logging.Logger, formatter: logging.Formatter) -> list[str]:
    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.setFormatter(formatter)
    logger.handlers[:] = [handler]
    ids = action_ids(ACTION, attempt=2) | {"run_id": 9}
    logger.warning("run of %s failed:\nline two", "a7", extra=ids)
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("no ids here")
    return sink.getvalue().splitlines()


def test_json_record_is_one_object_per_line_with_its_ids(logger: logging.Logger) -> None:
    lines = _lines(logger, JsonFormatter())
    first, second = json.loads(lines[0]), json.loads(lines[1])
    assert len(lines) == 2  # the message's newline and the traceback's are escaped
    assert first.pop("time").endswith("+00:00")
    assert first == {
        "level": "warning",
        "logger": "cadenza.test-log-records",
        "message": "run of a7 failed:\nline two",
        "tenant_id": "t-1",
        "action_id": 7,
        "occurrence_id": "action:7",
        "attempt": 2,
        "run_id": 9,
    }  # rule_id was None: left out
    assert not set(second) & {"tenant_id", "rule_id", "action_id", "run_id", "event_id"}
    assert second["level"] == "error" and "ValueError: boom" in second["exception"]


def test_text_record_ends_with_its_ids(logger: logging.Logger) -> None:
    lines = _lines(logger, TextFormatter())
    assert lines[0].endswith(" WARNING cadenza.test-log-records: run of a7 failed:")
    ids = "tenant_id=t-1 action_id=7 occurrence_id=action:7 attempt=2 run_id=9"
    assert lines[1] == f"line two {ids}"
    assert lines[2].endswith("ERROR cadenza.test-log-records: no ids here")
    assert lines[-1] == "ValueError: boom"
