"""`python -m bench.steady_cpu` end to end: the engine in-process, real runs, real SQLite."""

from __future__ import annotations

import re
import subprocess
import sys

HEAD = re.compile(r"^40 actions due at 20/s: loop CPU ([\d.]+) ms per action$")
COUNT = re.compile(r"^ +([\d.]+) per action +(.+)$")


def test_steady_cpu_reports_the_loops_cpu_and_statements_per_action() -> None:
    command = [sys.executable, "-m", "bench.steady_cpu", "--rate", "20", "--actions", "40"]
    done = subprocess.run([*command, "--tenants", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    head = HEAD.match(first)
    assert head is not None and float(head[1]) > 0, done.stdout
    counts = {m[2]: float(m[1]) for m in map(COUNT.match, rest) if m}
    # every action is read due and claimed: both statements ran about once per action or more
    claims = [n for text, n in counts.items() if text.startswith("UPDATE actions SET status")]
    reads = [n for text, n in counts.items() if text.startswith("SELECT actions.id")]
    assert claims and reads and min(claims + reads) >= 0.1, done.stdout
