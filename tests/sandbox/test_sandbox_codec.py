"""What crosses the worker boundary says exactly what was meant: a job the engine encodes is
the job the worker decodes, a well-formed report is read field for field, and a script's kept
key is its own. The encoders keep parts of earlier jobs (`Job.encode`) and of earlier scripts
(`_code_of`), so inputs are generated in runs that share them."""

from __future__ import annotations

import itertools
import json
import socket
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox import Limits, OutcomeStatus, RuntimeName, clean_json, clean_text
from sandbox.framing import FrameError, Kind, Receiver, encode
from sandbox.job import CodeForm, Job, Mode
from sandbox.python.runtime import PythonRuntime
from sandbox.report import WORKER_STATUSES, parse
from sandbox.runtime_base import CODE_KEPT_CHARS
from tests.sandbox.test_sandbox_text import ANY_TEXT

#: What a context or a result may hold: JSON, so no infinities.
FINITE_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)

SECONDS = st.floats(min_value=0.001, max_value=1e6, allow_nan=False, allow_infinity=False)
SIZES = st.integers(min_value=1, max_value=1 << 40)
LIMITS = st.builds(
    Limits,
    timeout_s=SECONDS,
    cpu_s=st.none() | SECONDS,
    memory_bytes=SIZES,
    output_bytes=SIZES,
    result_bytes=SIZES,
    host_calls=SIZES,
    fuel=st.none() | SIZES,
)
JOBS = st.builds(
    Job,
    runtime=st.sampled_from(RuntimeName),
    mode=st.sampled_from(Mode),
    key=st.sampled_from(["k1", "k2", "a" * 64]),  # few keys: encodings share their parts
    form=st.sampled_from(CodeForm),
    limits=st.sampled_from([Limits(), Limits(timeout_s=1.0)]) | LIMITS,
    context=st.none() | st.dictionaries(ANY_TEXT, FINITE_JSON, max_size=4),
)


@given(st.lists(JOBS, min_size=1, max_size=8))
def test_every_job_decodes_in_the_worker_as_the_job_the_engine_encoded(jobs: list[Job]) -> None:
    for job in jobs:
        assert Job.from_json(json.loads(job.encode())) == job


NUMBERS = st.none() | st.floats(min_value=0, max_value=1e9) | st.integers(0, 10**9)


@given(
    status=st.sampled_from(sorted(WORKER_STATUSES)),
    error=st.none() | ANY_TEXT,
    line=st.none() | st.integers(-(10**9), 10**9),
    stdout=st.none() | ANY_TEXT,
    truncated=st.none() | st.booleans(),
    result=FINITE_JSON,
    cpu_s=NUMBERS,
    cpu_total_s=NUMBERS,
    cpu_limit_s=NUMBERS,
    peak_memory_bytes=st.none() | st.integers(0, 1 << 40),
    fuel=st.none() | st.integers(0, 1 << 62),
)
def test_a_well_formed_report_is_read_field_for_field(
    status: str,
    error: str | None,
    line: int | None,
    stdout: str | None,
    truncated: bool | None,
    result: object,
    cpu_s: float | None,
    cpu_total_s: float | None,
    cpu_limit_s: float | None,
    peak_memory_bytes: int | None,
    fuel: int | None,
) -> None:
    message = {
        "status": status,
        "error": error,
        "line": line,
        "stdout": stdout,
        "truncated": truncated,
        "result_json": json.dumps(result),
        "cpu_s": cpu_s,
        "cpu_total_s": cpu_total_s,
        "cpu_limit_s": cpu_limit_s,
        "peak_memory_bytes": peak_memory_bytes,
        "fuel": fuel,
    }
    report = parse(json.loads(json.dumps(message)))
    assert report.status is OutcomeStatus(status)
    assert report.error == (None if error is None else clean_text(error[:4000]))
    assert report.line == line
    assert report.stdout == clean_text(stdout or "")
    assert report.truncated is bool(truncated)
    assert report.result == (clean_json(result) if status == "ok" else None)
    assert report.cpu_s == (None if cpu_s is None else float(cpu_s))
    assert report.cpu_total_s == float(cpu_total_s or 0.0)
    assert report.cpu_limit_s == float(cpu_limit_s or 0.0)
    assert (report.peak_memory_bytes, report.fuel) == (peak_memory_bytes, fuel)


FRAMES = st.lists(
    st.tuples(st.sampled_from([Kind.JOB, Kind.BLOB, Kind.REPLY]), st.binary(max_size=3000)),
    min_size=1,
    max_size=6,
)


@given(FRAMES, st.lists(st.integers(1, 4000), min_size=1, max_size=8))
def test_a_worker_receives_every_frame_whole_and_in_order_however_the_bytes_arrive(
    frames: list[tuple[Kind, bytes]], cuts: list[int]
) -> None:
    """The worker reads as many bytes as have arrived, so one read may hold the end of one
    frame and the start of the next: here the frames' bytes arrive in arbitrary pieces."""
    data = b"".join(encode(kind, body) for kind, body in frames)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        at = 0
        for cut in itertools.cycle(cuts):
            if at >= len(data):
                break
            ours.sendall(data[at : at + cut])
            at += cut
        ours.shutdown(socket.SHUT_WR)
        receiver = Receiver(theirs)
        assert [receiver.receive(4096) for _ in frames] == frames
        with pytest.raises(EOFError):
            receiver.receive(4096)


def test_a_frame_longer_than_its_limit_is_refused_before_its_body_is_read() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(encode(Kind.JOB, b"x" * 100)[:20])  # the header and part of the body
        with pytest.raises(FrameError, match="exceeds 99"):
            Receiver(theirs).receive(99)


#: Scripts that share most of their text, as str and as bytes, some too long to be kept.
SCRIPTS = st.sampled_from(
    [
        "def main(ctx):\n    return 1\n",
        "def main(ctx):\n    return 2\n",
        "def main(ctx):\n    return 'é'\n",
        "def main(ctx):\n    return 1\n" + "#" * CODE_KEPT_CHARS,
    ]
).flatmap(lambda text: st.sampled_from([text, text.encode()]))


@given(st.lists(SCRIPTS, min_size=1, max_size=30), st.integers(1, 3))
def test_a_scripts_kept_key_and_bytes_are_always_its_own(scripts: list, kept: int) -> None:
    """The engine keeps each script's key and bytes by its text (`_code_of`), and starts over
    when full: whatever was kept before, a script gets the key and bytes worked out afresh
    (a stale key would have a worker run another script it holds)."""
    runtime = PythonRuntime(None, Limits())  # type: ignore[arg-type]  # no run: no pool
    with patch("sandbox.runtime_base.CODES_KEPT", kept):
        for script in scripts:
            assert runtime._code_of(script) == runtime.code(script)
