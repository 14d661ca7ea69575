"""Taking a tenant's secret values out of everything a run leaves behind.

A script that read a secret (`ctx.secrets.get`) may print it, log it, return it, raise it,
emit it or write it to kv by mistake; the run's record, its events (and so its webhook
deliveries), its kv writes and a test run's answer are readable by people and systems that
must not learn it. Before any of them is stored or returned, every occurrence of each value
the run was given becomes `MARKER`, and so do its JSON-escaped and `repr` spellings (what
`print(repr(x))` or `json.dumps` would show). Where output was cut at its size limit, a cut-off
start of a value at the very end goes too. Longest values first, so that one secret inside
another leaves nothing of the longer.

This guards against disclosure by accident, not by design: a script that encodes a value
(reversed, base64) before printing it gets it out, as its tenant's own code may. The values
are the tenant's own; what must never happen is that Cadenza shows them to whoever reads runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sandbox import Outcome, map_json, map_outcome
from sandbox.outcomes import TRUNCATION_MARKER
from tenants.kv import DELETED
from tenants.kv_changes import KvChanges, KvWrite, Put
from tenants.tenant_secrets import REDACTED

MARKER = REDACTED
#: The sandbox's note at the end of output it cut at its size limit.
_CUT_NOTE = re.compile(re.escape(TRUNCATION_MARKER).replace(r"\{limit\}", r"\d+") + r"\Z")
#: The shortest cut-off start of a value that is taken from the end of cut output.
MIN_TAIL_CHARS = 3


class Redactor:
    """Replaces the given secret values (and their escaped spellings) in text and JSON."""

    def __init__(self, values: Iterable[str]) -> None:
        spellings = {form for value in values for form in _spellings(value) if form}
        self._values = sorted(spellings, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, self._values))) if spellings else None

    @property
    def is_empty(self) -> bool:
        return self._pattern is None

    def text(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(MARKER, text)

    def cut_text(self, text: str) -> str:
        """`text` redacted, and a value's start at its very end too, or just before the note
        that says the output was cut there. The note is the engine's text, not the script's: it
        is matched apart (a value ending in a newline would otherwise take the note's own)."""
        note = _CUT_NOTE.search(text)
        body, tail = (text[: note.start()], note.group()) if note else (text, "")
        body = self.text(body)
        for value in self._values:
            for size in range(len(value) - 1, MIN_TAIL_CHARS - 1, -1):
                if body.endswith(value[:size]):
                    return body[:-size] + MARKER + tail
        return body + tail

    def outcome(self, outcome: Outcome) -> Outcome:
        """Every text of `outcome` redacted (stdout, stderr and error as possibly cut)."""
        if self._pattern is None:
            return outcome
        redacted = map_outcome(outcome, self.text)
        return replace(
            redacted,
            stdout=self.cut_text(redacted.stdout),
            stderr=self.cut_text(redacted.stderr),
            error=None if redacted.error is None else self.cut_text(redacted.error),
        )

    def kv(self, changes: KvChanges) -> KvChanges:
        """The run's kv writes with keys and values redacted (the reads stay as they were)."""
        if self._pattern is None:
            return changes
        writes = {self.text(key): self._write(write) for key, write in changes.writes.items()}
        return KvChanges(writes, changes.checks)

    def json(self, value: Any) -> Any:
        return value if self._pattern is None else map_json(value, self.text)

    def _write(self, write: KvWrite) -> KvWrite:
        if isinstance(write, Put) and write.value is not DELETED:
            return Put(map_json(write.value, self.text))
        return write


def _spellings(value: str) -> tuple[str, ...]:
    """`value` as it appears in text as itself, inside JSON, and inside a Python repr."""
    return (
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        repr(value)[1:-1],
    )
