"""Redaction: wherever a secret's value lands in text or JSON, and however it is cut at the
end of output, none of it is left; text without a secret is left as it was."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.runs.redaction import MARKER, Redactor
from sandbox import Event, Outcome, OutcomeStatus
from tenants.kv import DELETED
from tenants.kv_changes import Add, KvChanges, Put

secret_values = st.text(min_size=8, max_size=40).filter(lambda v: "\x00" not in v and v != MARKER)
surrounding = st.text(max_size=30)
SETTINGS = settings(max_examples=300, deadline=None)


def _forms(secret: str) -> list[str]:
    return [secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]]


@SETTINGS
@given(secret=secret_values, before=surrounding, after=surrounding, times=st.integers(1, 3))
def test_no_spelling_of_a_secret_survives_in_text(
    secret: str, before: str, after: str, times: int
) -> None:
    redactor = Redactor([secret])
    for form in _forms(secret):
        redacted = redactor.text(before + (form + after) * times)
        assert secret not in redacted
        assert MARKER in redacted


@SETTINGS
@given(secret=secret_values, before=surrounding, cut=st.integers(3, 39))
@example(secret="0000000\n", before="", cut=7)  # the note's newline must not complete it
def test_a_secret_cut_at_the_end_of_output_leaves_no_start(
    secret: str, before: str, cut: int
) -> None:
    cut = min(cut, len(secret) - 1)
    if secret in before + secret[:cut]:  # whole, then redacted as such
        return
    redacted = Redactor([secret]).cut_text(before + secret[:cut])
    assert not redacted.endswith(secret[:cut])
    assert redacted.endswith(MARKER)
    note = "\n[output truncated at 65536 bytes]"
    assert Redactor([secret]).cut_text(before + secret[:cut] + note).endswith(MARKER + note)


@SETTINGS
@given(secret=secret_values, text=st.text(max_size=80))
def test_text_without_a_secret_is_unchanged(secret: str, text: str) -> None:
    if any(form in text for form in _forms(secret)):
        return
    assert Redactor([secret]).text(text) == text


@SETTINGS
@given(
    secrets=st.lists(secret_values, min_size=1, max_size=3),
    payload=st.recursive(
        st.none() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=8,
    ),
    where=st.integers(0, 6),
)
def test_an_outcome_and_kv_writes_hold_no_secret_wherever_it_was_put(
    secrets: list[str], payload: object, where: int
) -> None:
    secret = secrets[-1]
    placed = {"data": payload, secret: [f"x{secret}y"]}
    fields = ["stdout", "stderr", "error", "result", "events", "logs", "kv"]
    outcome = Outcome(
        status=OutcomeStatus.OK,
        result=placed if fields[where] == "result" else None,
        error=f"boom {secret}" if fields[where] == "error" else None,
        stdout=f"{secret}\n" if fields[where] == "stdout" else "",
        stderr=repr(secret) if fields[where] == "stderr" else "",
        events=(Event(secret[:64], placed),) if fields[where] == "events" else (),
        logs=(json.dumps(placed),) if fields[where] == "logs" else (),
    )
    redactor = Redactor(secrets)
    cleaned = redactor.outcome(outcome)
    made = [cleaned.result, cleaned.error, cleaned.stdout, cleaned.stderr, cleaned.logs]
    made += [[e.type, e.payload] for e in cleaned.events]
    assert secret not in json.dumps(made, ensure_ascii=False)
    writes = {secret: Put(placed), "n": Add(1), "gone": Put(DELETED)}
    changes = redactor.kv(KvChanges(writes, ()))
    assert secret not in json.dumps(
        {
            k: w.value
            for k, w in changes.writes.items()
            if isinstance(w, Put) and w.value is not DELETED
        },
        ensure_ascii=False,
    )
    assert changes.writes["n"] == Add(1) and changes.writes["gone"] == Put(DELETED)


def test_one_secret_inside_another_leaves_nothing_of_the_longer() -> None:
    inner, outer = "abcdefgh", "XXabcdefghYY"
    assert Redactor([inner, outer]).text(f"<{outer}>") == f"<{MARKER}>"


def test_no_secret_given_leaves_everything_as_it_was() -> None:
    outcome = Outcome(status=OutcomeStatus.OK, result={"a": "b"}, stdout="hello")
    assert Redactor([]).outcome(outcome) is outcome
