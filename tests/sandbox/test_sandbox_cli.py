"""`cadenza run-script`, the real command in a subprocess, for every runtime."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.processes import run_cli

EXAMPLE = Path(__file__).resolve().parents[2] / "sandbox" / "examples" / "threshold_alert.wat"
COUNTER = """
def main(ctx):
    n = ctx.kv.get("n", 0) + ctx.params["step"]
    ctx.kv.set("n", n)
    ctx.emit("counted", {"n": n})
    print("now", n)
    return n
"""


@pytest.fixture
def counter(tmp_path: Path) -> tuple[Path, Path]:
    script = tmp_path / "counter.py"
    script.write_text(COUNTER)
    kv = tmp_path / "kv.json"
    kv.write_text('{"n": 40}')
    return script, kv


@pytest.mark.parametrize("runtime", ["python", "micropython"])
def test_json_outcome_with_kv_params_and_events(counter, runtime: str) -> None:
    script, kv = counter
    args = ("--runtime", runtime, "--params", '{"step": 2}', "--kv", str(kv), "--json")
    done = run_cli("run-script", str(script), *args)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "ok"
    assert outcome["result"] == 42
    assert outcome["kv"] == {"n": 42}
    assert outcome["events"] == [{"type": "counted", "payload": {"n": 42}}]
    assert outcome["stdout"] == "now 42\n"
    assert outcome["error"] is None and outcome["duration_ms"] > 0


def test_wasm_example_runs_by_its_suffix(tmp_path: Path) -> None:
    kv = tmp_path / "kv.json"
    kv.write_text('{"errors": 99}')
    done = run_cli("run-script", str(EXAMPLE), "--kv", str(kv), "--json")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["result"] == {"alerted": True}
    assert outcome["events"][0]["type"] == "alert"


def test_failing_script_exits_1_with_the_error(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("def main(ctx):\n    return 1 / 0\n")
    done = run_cli("run-script", str(script))
    assert done.returncode == 1
    assert "status: error" in done.stdout
    assert "line 2: ZeroDivisionError: division by zero" in done.stdout


def test_timeout_flag_stops_a_cpu_bomb(tmp_path: Path) -> None:
    script = tmp_path / "bomb.py"
    script.write_text("def main(ctx):\n    while True:\n        pass\n")
    done = run_cli("run-script", str(script), "--timeout-ms", "300", "--json")
    assert done.returncode == 1
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "timeout"
    assert outcome["error"].startswith("stopped after 0.3 s (limit 0.3 s)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--params", "[1]"), "must be a JSON object"),
        (("--timeout-ms", "0"), "Invalid value for '--timeout-ms'"),
    ],
    ids=["params-not-object", "zero-timeout"],
)
def test_bad_input_exits_2(counter, args: tuple[str, ...], message: str) -> None:
    script, _ = counter
    done = run_cli("run-script", str(script), *args)
    assert done.returncode == 2
    assert message in done.stderr


#: (id, file name, script, extra options, status, words of the error) — findings of issue 18
#: through the real command.
FINDINGS = [
    ("surrogates", "s.py", 'def main(ctx):\n    print("a\\ud800")\n    return "\\udfff\\x00"\n',
     (), "ok", ""),
    ("surrogate-error", "e.py", 'def main(ctx):\n    raise ValueError("\\ud800")\n', (), "error",
     "ValueError"),
    ("micropython-surrogate", "m.py", 'def main(ctx):\n    raise ValueError("a\\ud800b")\n',
     ("--runtime", "micropython"), "error", "ValueError"),
    ("non-ascii", "n.py", "größe = 3\ndef main(ctx):\n    return größe\n", (), "ok", ""),
    ("segfault", "g.py", "def main(ctx):\n    g = iter([1])\n    for i in range(100000):\n"
     "        g = (x for x in g)\n    return next(g)\n", (), "error", "crashed its interpreter"),
    ("missing-attribute", "a.py", "def main(ctx):\n    return ctx.parms\n", (), "error",
     "AttributeError"),
    ("wasm-grow", "w.wat", '(module (memory (export "memory") 1) (func (export "main") (if'
     ' (i32.eq (memory.grow (i32.const 3200)) (i32.const -1)) (then unreachable))))',
     ("--memory-mb", "64"), "memory", "memory limit"),
    ("compile-bomb", "b.wat", '(module (global $g (mut i32) (i32.const 0)) (func (export "main") '
     + "(if (global.get $g) (then " * 20_000 + "nop" + "))" * 20_000 + "))",
     ("--timeout-ms", "2000"), "rejected", "compiling the script took longer"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "script", "options", "status", "words"),
    [f[1:] for f in FINDINGS],
    ids=[f[0] for f in FINDINGS],
)
def test_findings_end_with_their_status_and_print_valid_json(
    tmp_path: Path, name: str, script: str, options: tuple[str, ...], status: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(script)
    done = run_cli("run-script", str(path), *options, "--json")
    assert done.returncode == (0 if status == "ok" else 1), done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["status"] == status, outcome["error"]
    assert words in (outcome["error"] or "")
    for text in [done.stdout, *outcome["logs"], outcome["stdout"], outcome["error"] or ""]:
        assert "\x00" not in text
        text.encode("utf-8")  # raises on a lone surrogate
