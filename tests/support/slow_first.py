"""The suite's files, slowest first, so that parallel workers finish together.

pytest-xdist's `--dist loadfile` hands out whole files in collection order (with
`--no-loadscope-reorder`). Handed out last, one long file is a tail during which the other
workers idle; handed out first, it runs while the short files fill the gaps. The durations come
from an earlier run (`tests/file_durations.json`, written by `scripts/test-durations` from a
JUnit report); a file missing from it counts as slow, so that a new long file is never last.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DURATIONS_PATH = Path(__file__).resolve().parents[1] / "file_durations.json"


def file_durations() -> dict[str, float]:
    """Seconds per test file (its path relative to the repository), from the last record."""
    if not DURATIONS_PATH.exists():
        return {}
    recorded = json.loads(DURATIONS_PATH.read_text())
    return {str(path): float(seconds) for path, seconds in recorded.items()}


def slowest_files_first(items: list[pytest.Item]) -> None:
    """Reorder `items` in place: files by recorded duration, longest first; each file's tests
    keep their order and stay together."""
    durations = file_durations()
    unknown_s = max(durations.values(), default=0.0)
    position = {path: index for index, path in enumerate(dict.fromkeys(_file_of(i) for i in items))}

    def key(item: pytest.Item) -> tuple[float, int]:
        path = _file_of(item)
        return (-durations.get(path, unknown_s), position[path])

    items.sort(key=key)


def _file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]
