"""Text leaving the sandbox is storable by construction: every code point a script can make,
surrogates and NUL included, comes out as valid UTF-8 without NUL, and nothing else changes."""

from __future__ import annotations

import json
import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sandbox import (
    Event,
    Limits,
    Outcome,
    OutcomeStatus,
    RuntimeName,
    clean_json,
    clean_outcome,
    clean_text,
)
from sandbox.framing import FrameError
from sandbox.hostcalls import HostSession
from sandbox.memory_host import MemoryHost
from sandbox.outcomes import Run
from sandbox.report import WORKER_STATUSES, parse
from sandbox.text import REPLACEMENT
from sandbox.worker import call_body, dumps_args

#: Every code point, the lone surrogates and NUL included.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=50)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)


def is_storable(text: str) -> bool:
    return "\x00" not in text and text.encode("utf-8") is not None


def strings_of(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings_of(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings_of(v)]]
    return []


@given(ANY_TEXT)
def test_clean_text_replaces_each_unstorable_code_point_and_keeps_the_rest(text: str) -> None:
    cleaned = clean_text(text)
    assert is_storable(cleaned)
    assert len(cleaned) == len(text)
    for before, after in zip(text, cleaned, strict=True):
        bad = before == "\x00" or 0xD800 <= ord(before) <= 0xDFFF
        assert after == (REPLACEMENT if bad else before)


@given(JSON_VALUES)
def test_clean_json_cleans_every_string_and_key(value: object) -> None:
    cleaned = clean_json(value)
    assert all(is_storable(s) for s in strings_of(cleaned))
    assert clean_json(cleaned) == cleaned


@given(ANY_TEXT, JSON_VALUES)
def test_an_outcome_is_storable_in_every_field(text: str, value: object) -> None:
    outcome = Outcome(
        status=OutcomeStatus.ERROR,
        result=value,
        error=text,
        stdout=text,
        stderr=text,
        events=(Event(type=text, payload=value),),
        logs=(text, text),
    )
    cleaned = clean_outcome(outcome)
    fields = [cleaned.error or "", cleaned.stdout, cleaned.stderr, *cleaned.logs]
    fields += [e.type for e in cleaned.events] + strings_of(cleaned.result)
    fields += [s for e in cleaned.events for s in strings_of(e.payload)]
    assert all(is_storable(s) for s in fields)
    assert cleaned.status is outcome.status


#: Text that holds an unstorable code point more often than any code point drawn at random.
UNCLEAN_TEXT = ANY_TEXT | st.text(st.sampled_from("a\x00\ud800\udfff"), min_size=1, max_size=6)
UNCLEAN_JSON = st.recursive(
    st.none() | st.integers() | UNCLEAN_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(UNCLEAN_TEXT, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300)
@given(
    st.sampled_from([OutcomeStatus.OK, OutcomeStatus.ERROR]),
    UNCLEAN_TEXT,
    UNCLEAN_JSON,
    st.none() | st.integers(1, 99),
    st.lists(st.tuples(UNCLEAN_TEXT, UNCLEAN_JSON), max_size=3),
    st.lists(UNCLEAN_TEXT, max_size=3),
)
def test_a_runs_outcome_is_built_as_clean_as_clean_outcome_leaves_one(
    status: OutcomeStatus,
    text: str,
    value: object,
    line: int | None,
    events: list[tuple[str, object]],
    logs: list[str],
) -> None:
    """`Run.outcome`, which builds every run's Outcome, cleans each field as `clean_outcome`
    does: the two must not drift apart (the first builds clean, the second copies clean)."""
    run = Run(RuntimeName.PYTHON, Limits())
    run.status, run.result, run.error, run.error_line = status, value, text, line
    run.stdout, run.stderr = text, text[::-1]
    session = HostSession(MemoryHost(), Limits())
    session.events.extend(Event(type_, payload) for type_, payload in events)
    session.logs.extend(logs)
    built = run.outcome(session)
    raw = Outcome(
        status=status,
        result=value if status is OutcomeStatus.OK else None,
        error=text if line is None else f"line {line}: {text}",
        stdout=text,
        stderr=text[::-1],
        events=tuple(session.events),
        logs=tuple(logs),
    )
    cleaned = clean_outcome(raw)
    for name in ("status", "result", "error", "stdout", "stderr", "events", "logs"):
        assert getattr(built, name) == getattr(cleaned, name), name


@settings(max_examples=300)
@given(JSON_VALUES | st.dictionaries(st.sampled_from(["status", "error", "line", "stdout",
       "result_json", "cpu_s", "fuel", "truncated"]), JSON_VALUES))  # fmt: skip
def test_a_workers_report_is_either_read_clean_or_refused(message: object) -> None:
    """A worker's report is untrusted input: whatever it holds, the engine gets a typed record
    with storable text, or FrameError, never another exception."""
    try:
        report = parse(message)
    except FrameError:
        return
    assert report.status in WORKER_STATUSES
    assert all(
        is_storable(s) for s in [report.error or "", report.stdout, *strings_of(report.result)]
    )


#: A surrogate (lone or in a pair) or a NUL as JSON writes it (ASCII output).
UNSTORABLE_ESCAPES = re.compile(r"\\u(?:0000|d[89a-f])")


@given(st.sampled_from(["kv_set", "emit", "capability_call"]), st.lists(JSON_VALUES, max_size=4))
def test_a_host_calls_frame_is_its_arguments_cleaned_whether_sent_as_encoded_or_not(
    op: str, args: list[object]
) -> None:
    """The worker sends clean arguments as it encoded them, and re-encodes the others: the
    engine reads the same clean value either way."""
    try:
        text = dumps_args(args)
    except FrameError:
        assume(False)  # an infinity: refused before any frame is made
    body = call_body(op, text)
    assert json.loads(body) == {"op": op, "args": clean_json(args)}
    if UNSTORABLE_ESCAPES.search(text) is None:  # no surrogate (not even a pair), no NUL
        assert body.endswith(f',"args":{text}}}')  # sent as encoded, not encoded again
