"""The report's arithmetic on known inputs: percentiles, medians, paired ratios, parsing."""

from __future__ import annotations

import math

import pytest

from bench.results import Recorder
from bench.scenarios.lateness import load_duration_s
from bench.scenarios.preview import parse_output
from bench.scenarios.sandbox import flatten, unit_of
from bench.scenarios.throughput import sized
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


def test_preview_output_is_parsed_into_sections() -> None:
    text = (
        "preview of 10 occurrences (parse + preview), ms: median p99\n"
        "  weekdays 9:00 Berlin                        1.12    1.92\n"
        "next_after on a parsed schedule (the engine's per-run call), ms: median p99\n"
        "  weekdays 9:00 Berlin                        0.11    6.54\n"
        "pathological rule rejected, ms: median p99\n"
        "  minutely Feb 30                             9.01   11.47\n"
    )
    assert parse_output(text) == [
        ("preview of 10 occurrences", "weekdays 9:00 Berlin", 1.12, 1.92),
        ("next_after on a parsed schedule", "weekdays 9:00 Berlin", 0.11, 6.54),
        ("pathological rule rejected", "minutely Feb 30", 9.01, 11.47),
    ]


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


@pytest.mark.parametrize(
    ("capacity_per_s", "expected"),
    [
        (5000.0, 10_000),  # fast enough: the target as asked
        (450.0, 2700),  # 450/s x 6 s, rounded down to hundreds
        (3.0, 100),  # never below 100 actions
        (math.inf, 10_000),  # not calibrated (quick mode): the target
    ],
)
def test_burst_size_follows_calibrated_capacity(capacity_per_s: float, expected: int) -> None:
    assert sized(capacity_per_s, 10_000, 6.0) == expected


def test_load_above_capacity_is_shortened_but_never_below_half_a_second() -> None:
    assert load_duration_s(100, 10.0, capacity_per_s=500, budget_s=15) == 10.0
    assert load_duration_s(1000, 10.0, capacity_per_s=200, budget_s=15) == 3.0
    assert load_duration_s(1000, 10.0, capacity_per_s=20, budget_s=15) == 0.5
