"""`python -m bench.next_after --json` and the next_after scenario that reads it."""

from __future__ import annotations

import json

import pytest

from bench.next_after import APSCHEDULER, CASES, OURS, main
from bench.scenarios.next_after import figures_of


def test_next_after_json_has_a_figure_per_case_and_system(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--json", "--rounds", "5"])
    data = json.loads(capsys.readouterr().out)
    figures = figures_of(data)
    expected = []
    for case, _text, _zone, trigger in CASES:
        expected.append((case, OURS))
        if trigger is not None:
            expected.append((case, APSCHEDULER))
    assert [(case, system) for case, system, _, _ in figures] == expected
    for _case, _system, median_ms, p99_ms in figures:
        assert 0 < median_ms <= p99_ms


def test_next_after_scenario_rejects_rows_missing_a_figure() -> None:
    with pytest.raises(KeyError, match="p99_ms"):
        figures_of({"figures": [{"case": "x", "system": OURS, "median_ms": 1.0}]})
