"""`python -m bench.preview --json` and the preview scenario that reads it."""

from __future__ import annotations

import json

import pytest

from bench.preview import NEXT_AFTER, PATHOLOGICAL, PREVIEW, REJECTED, TYPICAL, main
from bench.scenarios.preview import figures_of


def test_preview_json_has_one_figure_per_case_and_the_scenario_reads_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--json", "--rounds", "3"])
    data = json.loads(capsys.readouterr().out)
    assert data["rounds"] == 3 and data["reject_rounds"] == 3
    figures = figures_of(data)
    expected_cases = (
        [(PREVIEW, name) for name, _, _ in TYPICAL]
        + [(NEXT_AFTER, name) for name, _, _ in TYPICAL]
        + [(REJECTED, name) for name, _ in PATHOLOGICAL]
    )
    assert [(section, case) for section, case, _, _ in figures] == expected_cases
    for _section, _case, median_ms, p99_ms in figures:
        assert 0 < median_ms <= p99_ms


def test_preview_scenario_rejects_rows_missing_a_figure() -> None:
    with pytest.raises(KeyError, match="p99_ms"):
        figures_of({"figures": [{"section": PREVIEW, "case": "x", "median_ms": 1.0}]})
