"""RFC 5545 §3.8.5.3: every example gives exactly the RFC's dates (Python API for all, the real
`cadenza preview --json` for a sample)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.rfc5545_examples import EXAMPLES

from engine.recurrence import parse_schedule, preview

_BEFORE = datetime(1996, 1, 1, tzinfo=UTC)
_CADENZA = Path(sys.executable).parent / "cadenza"
#: A few examples through the real executable (each start costs seconds on a busy machine).
_CLI_IDS = {
    "daily-count-10",
    "first-last-sunday-every-other-month",
    "friday-13th-with-exdate",
    "every-3-hours-9-to-5",
}


def _local(values: list[datetime]) -> list[str]:
    return [f"{v:%Y-%m-%d %H:%M}" for v in values]


@pytest.mark.parametrize(
    ("text", "expected", "whole"), [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES]
)
def test_rfc5545_example_gives_rfc_dates(text: str, expected: list[str], whole: bool) -> None:
    schedule = parse_schedule(text, "UTC")
    count = len(expected) + 1 if whole else len(expected)
    got = preview(schedule, _BEFORE, count).occurrences
    assert _local(got) == expected
    assert all(str(at.tzinfo) == "America/New_York" for at in got)


@pytest.mark.parametrize(
    ("text", "expected", "whole"),
    [e[1:] for e in EXAMPLES if e[0] in _CLI_IDS],
    ids=[e[0] for e in EXAMPLES if e[0] in _CLI_IDS],
)
def test_rfc5545_example_through_cli_json(text: str, expected: list[str], whole: bool) -> None:
    count = str(len(expected) + 1 if whole else len(expected))
    done = subprocess.run(
        [
            str(_CADENZA),
            "preview",
            text,
            "--after",
            "1996-01-01T00:00:00Z",
            "--count",
            count,
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    got = [datetime.fromisoformat(at) for at in data["occurrences"]]
    assert _local(got) == expected
    assert data["occurrences"][0].endswith(("-04:00", "-05:00"))
    assert data["finite"] is whole
