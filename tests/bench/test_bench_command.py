"""`cadenza bench` end to end on small scenarios: real subprocesses, a real results file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.ci import missing
from support.postgres import find_bin_dir
from support.processes import run_cli

from bench.peer import Peer, fire_all

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_preview_writes_well_formed_results(tmp_path: Path) -> None:
    done = run_cli("bench", "--quick", "preview", "--out", str(tmp_path), timeout_s=110)
    assert done.returncode == 0, done.stderr
    (results,) = tmp_path.glob("*.json")
    data = json.loads(results.read_text())
    assert data["schema"] == "cadenza-bench/1"
    assert data["mode"] == "quick"
    assert data["command"] == "cadenza bench --quick preview"
    assert data["machine"]["cores"] >= 1 and data["machine"]["cpu"]
    assert list(data["scenarios"]) == ["preview"]
    preview = data["scenarios"]["preview"]
    assert preview["status"] == "ok"
    sections = {f["system"] for f in preview["figures"]}
    assert {"preview of 10 occurrences", "pathological rule rejected"} <= sections
    for figure in preview["figures"]:
        assert figure["unit"] == "ms"
        assert sorted(figure["repeats"])[len(figure["repeats"]) // 2] == figure["median"]
    assert preview["machine"]["speed_probe_ms"] > 0
    assert 0 <= preview["machine"]["cpu_steal_percent"] <= 100
    report = results.with_suffix(".md").read_text()
    assert "# Cadenza benchmark" in report and "## preview" in report
    assert f"speed probe {preview['machine']['speed_probe_ms']:.1f} ms" in report
    assert str(results) in done.stdout


def test_bench_rejects_an_unknown_scenario(tmp_path: Path) -> None:
    done = run_cli("bench", "--quick", "warp-speed", "--out", str(tmp_path))
    assert done.returncode == 2
    assert "warp-speed" in done.stderr
    assert not list(tmp_path.iterdir())


def test_peer_fires_every_job_once_and_reports_its_lateness(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'peer.db'}"
    lateness_ms = fire_all(url, Peer.TUNED, [0.0] * 20 + [0.05] * 10, lead_s=1.0)
    assert len(lateness_ms) == 30
    assert min(lateness_ms) >= 0


@pytest.mark.postgres
def test_bench_quick_multinode_reports_each_node_counts_cost_on_postgresql(
    tmp_path: Path,
) -> None:
    """Real `cadenza worker` nodes on the suite's own PostgreSQL cluster: each node count's
    drain runs every action once and says what each action cost the server and the nodes."""
    if find_bin_dir() is None:
        missing("PostgreSQL server binaries (initdb, pg_ctl) not found")
    done = run_cli("bench", "--quick", "multinode", "--out", str(tmp_path), timeout_s=240)
    assert done.returncode == 0, done.stderr
    (results,) = tmp_path.glob("*.json")
    multinode = json.loads(results.read_text())["scenarios"]["multinode"]
    assert multinode["status"] == "ok", multinode["notes"]
    assert not [note for note in multinode["notes"] if "not measured" in note]
    figures = {(f["system"], f["metric"]): f["median"] for f in multinode["figures"]}
    for system in ("1 worker", "2 workers"):
        assert figures[(system, "duplicate committed runs")] == 0
        assert figures[(system, "throughput")] > 0
        # a claim, a start and a record at the least, and no statement per row of a table
        assert 1 <= figures[(system, "statements per action")] < 100
        for metric in (
            "busy sessions waiting on a lock",
            "busy sessions waiting on an internal lock",
        ):
            assert 0 <= figures[(system, metric)] <= 100
        # (a sandbox's share of 100 trivial runs can be below /proc's 10 ms tick)
        assert figures[(system, "event loop CPU per action")] > 0


def _loop_split(*args: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.loop_split", "--size", "300", "--tenants", "3", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "300 due at once over 3 tenants" in done.stdout
    # "other threads" is the process's total less its main thread, read a moment apart: a clock
    # tick either side can make it slightly negative when the threads did nothing
    parts = re.findall(r"^\s+(event loop|other threads|sandbox)\s+(-?[\d.]+) ms", done.stdout, re.M)
    return {part: float(ms) for part, ms in parts}


def test_loop_split_tells_the_sandbox_conversation_from_the_rest() -> None:
    """A real drain spends CPU in sandbox workers; answered at once, none, and its event loop
    still does the engine's work for every action."""
    real, answered = _loop_split(), _loop_split("--answered-at-once")
    assert set(real) == set(answered) == {"event loop", "other threads", "sandbox"}
    assert real["sandbox"] > 0 and real["event loop"] > 0
    # the sandbox's zygote still starts: a clock tick of it may land in the drain
    assert answered["sandbox"] < real["sandbox"] / 3 and answered["event loop"] > 0
