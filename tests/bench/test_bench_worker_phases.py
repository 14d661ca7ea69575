"""`python -m bench.worker_phases` end to end: a real worker per runtime, real runs."""

from __future__ import annotations

import re
import subprocess
import sys

LINE = re.compile(
    r"^(\w+): worker CPU ([\d.]+) ms/run, round trip median [\d.]+ ms, fuel (\d+)/run$"
)


def test_worker_phases_reports_each_runtimes_cpu_fuel_and_phases() -> None:
    command = [sys.executable, "-m", "bench.worker_phases", "--runs", "30", "--profile"]
    done = subprocess.run(
        [*command, "--script", "medium"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    found = {m[1]: (float(m[2]), int(m[3])) for m in map(LINE.match, lines) if m}
    assert set(found) == {"micropython", "wasm"}, done.stdout
    assert all(cpu_ms > 0 and fuel > 0 for cpu_ms, fuel in found.values())
    # the medium script's own work, compiled once: far more than the trivial wasm module's
    assert found["micropython"][1] > 100 * found["wasm"][1]
    phases = [line.split()[0] for line in lines if line.startswith("  ")]
    assert {"rewind", "receive", "host"} <= set(phases), done.stdout
