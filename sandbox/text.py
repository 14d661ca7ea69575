"""Text that leaves the sandbox is valid UTF-8 that both databases can store, by construction.

A Python `str` may hold lone surrogates (`"\\ud800"`), which are not Unicode scalar values:
they cannot be encoded as UTF-8, so SQLite refuses the row, and PostgreSQL refuses them in
JSON too; PostgreSQL text cannot hold NUL either. One such string in a run's output used to
fail the whole completion batch it was recorded in, other tenants' runs included. So every
piece of text a script produces (stdout, errors, logs, results, events, kv values) passes
through `clean_text` / `clean_json` twice: in the worker, where it is made, and in the
engine, where it arrives (a worker is not trusted to have done it). Each surrogate code
point and each NUL becomes U+FFFD, the replacement character: the rest of the text is kept,
and the mark shows where something was dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from sandbox.contract import Event, Outcome

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with every surrogate code point and NUL replaced by U+FFFD (an exact `str`)."""
    return _UNSTORABLE.sub(REPLACEMENT, str.__str__(text))


def clean_json(value: Any) -> Any:
    """A JSON value (as `json.loads` builds it) whose strings, keys included, are clean."""
    return map_json(value, clean_text)


def map_json(value: Any, text: Callable[[str], str]) -> Any:
    """A JSON value with `text` applied to every string in it, keys included."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [map_json(item, text) for item in value]
    if isinstance(value, dict):
        return {text(key): map_json(item, text) for key, item in value.items()}
    return value


def clean_outcome(outcome: Outcome) -> Outcome:
    """`outcome` with every text field clean: what the engine records is always storable."""
    return map_outcome(outcome, clean_text)


def clean_events(events: Iterable[Event]) -> tuple[Event, ...]:
    """`events` with every type and payload string clean (as `clean_outcome` leaves them)."""
    return _map_events(events, clean_text)


def _map_events(events: Iterable[Event], text: Callable[[str], str]) -> tuple[Event, ...]:
    return tuple(Event(text(e.type), map_json(e.payload, text)) for e in events)


def map_outcome(outcome: Outcome, text: Callable[[str], str]) -> Outcome:
    """`outcome` with `text` applied to every piece of text the script made."""
    return replace(
        outcome,
        result=map_json(outcome.result, text),
        error=None if outcome.error is None else text(outcome.error),
        stdout=text(outcome.stdout),
        stderr=text(outcome.stderr),
        events=_map_events(outcome.events, text),
        logs=tuple(text(line) for line in outcome.logs),
    )
