"""The report's arithmetic on known inputs: percentiles, medians, paired ratios, sandbox JSON."""

from __future__ import annotations

import math

import pytest

from bench.results import Recorder
from bench.scenarios.sandbox import flatten, unit_of
from bench.stats import downsample, lateness_summary, median, paired_ratios, percentile


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1, 2, 3, 4, 5], 50, 3),  # odd count: the middle value
        ([1, 2, 3, 4], 50, 2.5),  # even count: halfway between the middle two
        ([10, 20], 99, 19.9),  # interpolates between ranks, numpy's "linear"
        ([5, 1, 4, 2, 3], 0, 1),  # unsorted input, q=0 is the minimum
        ([5, 1, 4, 2, 3], 100, 5),  # q=100 is the maximum
        (list(range(1, 101)), 99, 99.01),  # 1..100: rank 98.01
        ([7.5], 99, 7.5),  # one sample is every percentile
    ],
)
def test_percentile_interpolates_linearly_between_ranks(
    values: list[float], q: float, expected: float
) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_refuses_empty_samples_and_bad_q() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="outside"):
        percentile([1], 101)


def test_lateness_summary_reports_p50_p99_max_and_count() -> None:
    summary = lateness_summary([float(v) for v in range(1, 1001)])
    assert summary == {
        "p50_ms": pytest.approx(500.5),
        "p99_ms": pytest.approx(990.01),
        "max_ms": 1000.0,
        "count": 1000.0,
    }


def test_paired_ratios_divide_repeat_by_repeat_not_medians() -> None:
    # The ratio of medians would be 200/400 = 0.5; the pairs are 2, 1 and 0.5 (median 1).
    ours, peer = [100.0, 400.0, 200.0], [50.0, 400.0, 400.0]
    pairs = paired_ratios(ours, peer)
    assert pairs == [2.0, 1.0, 0.5]
    assert median(pairs) == 1.0
    assert median(ours) / median(peer) == 0.5


def test_paired_ratios_need_equal_repeats_and_survive_a_zero() -> None:
    with pytest.raises(ValueError, match="cannot pair"):
        paired_ratios([1.0, 2.0], [1.0])
    assert paired_ratios([1.0], [0.0]) == [math.inf]


def test_recorder_figures_and_ratios_follow_the_repeats() -> None:
    recorder = Recorder()
    for ours, peer in [(3000, 1000), (2000, 1000), (1500, 1000)]:
        recorder.add("burst", "cadenza (python)", "throughput", "actions/s", ours)
        recorder.add("burst", "apscheduler", "throughput", "actions/s", peer)
    figures = {f.system: f for f in recorder.figures()}
    assert figures["cadenza (python)"].repeats == [3000, 2000, 1500]
    assert figures["cadenza (python)"].median == 2000
    (ratio,) = recorder.ratios("cadenza (python)", "apscheduler")
    assert ratio.pairs == [3.0, 2.0, 1.5]
    assert ratio.median == 2.0
    assert recorder.ratios("cadenza (python)", "nobody") == []


def test_downsample_keeps_extremes_and_limit() -> None:
    values = [float(v) for v in range(10_000)]
    kept = downsample(values, 100)
    assert len(kept) == 100
    assert kept[0] == 0 and kept[-1] == 9999
    assert downsample([3.0, 1.0], 100) == [1.0, 3.0]


def test_sandbox_json_numbers_become_figures_with_units() -> None:
    data = {"python": {"overhead_median_ms": 1.5, "runs_per_s": 900, "ok": True}, "cores": 2}
    assert flatten(data) == [
        ("python", "overhead_median_ms", 1.5),
        ("python", "runs_per_s", 900.0),
        ("sandbox", "cores", 2.0),
    ]
    assert unit_of("overhead_p99_ms") == "ms"
    assert unit_of("runs_per_s") == "/s"
    assert unit_of("cores") == ""
