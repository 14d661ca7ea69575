"""The type checker finds no errors in `engine sandbox tenants api` ([tool.mypy] in
pyproject.toml; decision 77). It runs as one of the suite's files, handed out first by its
recorded duration, so that it overlaps the other tests instead of delaying all of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(900)
def test_mypy_finds_no_errors() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=840
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found"), done.stdout
