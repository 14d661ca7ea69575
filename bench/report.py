"""The Markdown report of one suite run, next to its JSON and PNGs in the results directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.machine import machine_line
from bench.plots import lateness_png, throughput_png
from bench.results import ScenarioResult


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}".replace(",", " ")
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _figures_table(result: ScenarioResult) -> list[str]:
    lines = ["| case | system | metric | median | repeats |", "|---|---|---|---:|---|"]
    for f in result.figures:
        repeats = ", ".join(_number(v) for v in f.repeats)
        lines.append(
            f"| {f.case} | {f.system} | {f.metric} | {_number(f.median)} {f.unit} | {repeats} |"
        )
    return lines


def _ratios_table(result: ScenarioResult) -> list[str]:
    if not result.ratios:
        return []
    lines = [
        "",
        "Ratios Cadenza / peer, pair by pair (repeat i of one with repeat i of the other); "
        "above 1 is better for Cadenza in throughput, below 1 is better in lateness:",
        "",
        "| case | metric | ours | peer | median ratio | pairs |",
        "|---|---|---|---|---:|---|",
    ]
    for r in result.ratios:
        pairs = ", ".join(f"{p:.2f}" for p in r.pairs)
        lines.append(f"| {r.case} | {r.metric} | {r.ours} | {r.peer} | {r.median:.2f}x | {pairs} |")
    return lines


def _plots(result: ScenarioResult, stem: Path) -> list[str]:
    made = [
        throughput_png(result, stem.with_name(f"{stem.name}-{result.name}-actions-per-s.png")),
        lateness_png(result, stem.with_name(f"{stem.name}-{result.name}-lateness-cdf.png")),
    ]
    return [f"![{result.name}]({path.name})" for path in made if path is not None]


def _machine_state(machine: dict[str, float | None]) -> str:
    """How fast the machine was: compare the probe across runs before comparing figures."""
    steal = machine.get("cpu_steal_percent")
    stolen = "not counted here" if steal is None else f"{steal:.1f} %"
    return (
        f"Machine while it ran: speed probe {machine['speed_probe_ms']:.1f} ms before it "
        f"(`bench.machine.speed_probe_ms`, lower is faster), CPU steal {stolen}."
    )


def _section(result: ScenarioResult, stem: Path) -> list[str]:
    lines = [f"## {result.name}", ""]
    lines.append(
        f"Status: **{result.status}** in {result.duration_s:.0f} s. Parameters: `{result.params}`."
    )
    if result.machine:
        lines += ["", _machine_state(result.machine)]
    lines.append("")
    if result.figures:
        lines += _figures_table(result)
    lines += _ratios_table(result)
    if result.notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in result.notes]
    plots = _plots(result, stem)
    if plots:
        lines += ["", *plots]
    return [*lines, ""]


def write_report(run: dict[str, Any], results: list[ScenarioResult], stem: Path) -> Path:
    """Write `<stem>.md` (and its PNGs) for a suite run; return the Markdown path."""
    lines = [
        f"# Cadenza benchmark, {run['started_at']} ({run['mode']} mode)",
        "",
        f"- Command: `{run['command']}`",
        f"- Machine: {machine_line(run['machine'])}",
        f"- Every figure is the median over its repeats, all listed ({run['repeats']} for "
        "every comparison with APScheduler, whose ratios are taken pair by pair).",
        f"- Raw results: [{stem.name}.json]({stem.name}.json)",
        "",
    ]
    for result in results:
        lines += _section(result, stem)
    path = stem.with_suffix(".md")
    path.write_text("\n".join(lines))
    return path
