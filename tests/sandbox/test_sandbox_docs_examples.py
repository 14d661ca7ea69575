"""The examples tenants read in docs/scripts.md run as documented, in both Python runtimes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sandbox import Limits, OutcomeStatus
from sandbox.memory_host import MemoryHost

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scripts.md").read_text()
EXAMPLES = dict(re.findall(r"### Example: ([^\n]+)\n\n```python\n(.*?)```", DOC, re.S))
PARAMS_KV = {
    "daily summary": (
        {"to": "ops@example.com"},
        {"orders:2026-11-23": [{"amount": 2.5}, {"amount": 4}]},
    ),
    "reminder, at most once per occurrence": ({"to": "a@example.com", "subject": "hi"}, {}),
    "threshold alert": ({"threshold": 3}, {"errors": 5}),
}
EXPECTED = {
    "daily summary": {"day": "2026-11-23", "orders": 2, "total": 6.5},
    "reminder, at most once per occurrence": {"skipped": False, "attempt": 1},
    "threshold alert": {"alerted": True, "count": 5},
}


def test_every_example_is_covered() -> None:
    assert set(EXAMPLES) == set(EXPECTED)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("runtime", ["python", "micropython"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_example_runs_as_documented(sandbox, context, runtime: str, name: str) -> None:
    params, kv = PARAMS_KV[name]
    run_context = context.__class__(**{**vars(context), "params": params})
    host = MemoryHost(kv)
    outcome = await sandbox.runtime(runtime).run(EXAMPLES[name], run_context, Limits(), host)
    assert outcome.status is OutcomeStatus.OK, (outcome.error, outcome.stderr)
    assert outcome.result == EXPECTED[name]
    assert len(outcome.events) == 1
