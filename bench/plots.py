"""The report's PNGs: throughput bars and lateness distributions (matplotlib, no display)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bench.results import ScenarioResult


def throughput_png(result: ScenarioResult, path: Path) -> Path | None:
    """Grouped bars: actions/s per system, one group per case, medians with the repeat range."""
    groups: dict[str, list[tuple[str, float, float, float]]] = defaultdict(list)
    for f in result.figures:
        if f.unit == "actions/s":
            groups[f.case].append((f.system, f.median, min(f.repeats), max(f.repeats)))
    if not groups:
        return None
    fig, axes = plt.subplots(1, len(groups), figsize=(6 * len(groups), 4.5), squeeze=False)
    for ax, (case, bars) in zip(axes[0], groups.items(), strict=True):
        labels = [b[0] for b in bars]
        medians = [b[1] for b in bars]
        errors = [[m - lo for _, m, lo, _ in bars], [hi - m for _, m, _, hi in bars]]
        ax.barh(labels, medians, xerr=errors, color="#4878a8")
        ax.set_title(case)
        ax.set_xlabel("actions/s (median, bars: min-max of repeats)")
        ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def lateness_png(result: ScenarioResult, path: Path) -> Path | None:
    """Cumulative distribution of lateness per system, one panel per load, log-scaled ms."""
    panels: dict[str, list[tuple[str, list[float]]]] = defaultdict(list)
    for s in result.samples:
        if s.kind == "lateness_ms" and s.values:
            panels[s.case].append((s.system, s.values))
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (case, series) in zip(axes[0], panels.items(), strict=True):
        for system, values in series:
            ordered = sorted(max(v, 0.01) for v in values)
            fractions = [(i + 1) / len(ordered) for i in range(len(ordered))]
            ax.plot(ordered, fractions, label=system)
        ax.set_xscale("log")
        ax.set_title(case)
        ax.set_xlabel("lateness, ms (run started - due; log scale)")
        ax.set_ylabel("fraction of actions")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
