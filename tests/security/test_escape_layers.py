"""Each OS isolation layer of a python worker, tested directly with unrestricted code.

RestrictedPython is the first wall; these tests assume it has fallen. A fresh interpreter
applies exactly the worker's confinement (`prepare_worker`, then `bind_limits` and
`limit_run_cpu` as at a first run) and then tries what an escaped script would try,
reporting over the one descriptor it keeps. A layer the platform lacks is skipped here and
reported by `Sandbox.capabilities()`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from support.ci import missing

from sandbox import isolation

ROOT = str(Path(__file__).resolve().parents[2])

PROBE = textwrap.dedent(
    """
    import json, os, resource, socket, sys
    from sandbox import isolation, seccomp
    from sandbox.contract import RuntimeName
    report_fd = int(sys.argv[1])
    layers = isolation.detect(has_netns=False)
    keep = frozenset({report_fd})
    import threading
    go, done, other_thread = threading.Event(), threading.Event(), {}

    def before_confinement():  # a thread started before the filter, as the wasm timer is
        def probe_later():
            go.wait()
            try:
                socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                other_thread["socket"] = "allowed"
            except BaseException as exc:
                other_thread["socket"] = type(exc).__name__
            done.set()
        threading.Thread(target=probe_later, daemon=True).start()

    base = isolation.prepare_worker(
        layers, keep, sys.argv[2], 200999, seccomp.build_filter(), before_confinement
    )
    uid = os.getuid()
    runtime = RuntimeName(sys.argv[3])
    isolation.limit_run_cpu(5, isolation.bind_limits(runtime, base, 64 * 1024 * 1024, 5))
    results = {"layers": layers.as_dict(), "uid": uid, "env": dict(os.environ)}

    def attempt(name, action):
        try:
            action()
            results[name] = "allowed"
        except BaseException as exc:
            results[name] = type(exc).__name__

    attempt("read_etc_passwd", lambda: open("/etc/passwd").read())
    attempt("write_file", lambda: open("/escape", "w").write("x"))
    try:
        results["root_entries"] = os.listdir("/")
    except OSError as exc:
        results["root_entries"] = type(exc).__name__
    attempt("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    attempt("unix_socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("fork", lambda: os.fork() and None)
    attempt("exec", lambda: os.execv("/bin/sh", ["sh", "-c", "true"]))
    attempt("kill_parent", lambda: os.kill(os.getppid(), 0))
    attempt("raise_rlimit", lambda: resource.setrlimit(resource.RLIMIT_CPU, (50, 50)))
    attempt("limit_parent", lambda: resource.prlimit(os.getppid(), resource.RLIMIT_CPU))
    attempt("allocate_past_limit", lambda: bytearray(256 * 1024 * 1024))
    attempt("compute", lambda: sum(range(1000)))
    go.set()
    done.wait(10)
    results["other_thread_socket"] = other_thread.get("socket")
    os.write(report_fd, json.dumps(results).encode())
    """
)


def run_probe(runtime: str) -> dict[str, object]:
    """The probe confined as a worker of `runtime` is (its memory rlimit differs)."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryDirectory() as root_dir:
        os.chmod(root_dir, 0o555)
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(write_fd), root_dir, runtime],
            pass_fds=[write_fd],
            env={"PYTHONPATH": ROOT, "SECRET_TOKEN": "must-not-leak"},
            capture_output=True,
            timeout=60,
        )
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as report:
            data = report.read()
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(data)


@pytest.fixture(scope="module")
def probe() -> dict[str, object]:
    return run_probe("python")


def needs(probe: dict[str, object], layer: str) -> None:
    layers = probe["layers"]
    assert isinstance(layers, dict)
    if not layers.get(layer):
        missing(f"this platform lacks the {layer} layer (reported at sandbox start)")


def test_environment_is_empty_and_computation_still_works(probe) -> None:
    assert probe["env"] == {}
    assert probe["compute"] == "allowed"


def test_files_are_unreachable(probe) -> None:
    needs(probe, "chroot")
    assert probe["read_etc_passwd"] in {"FileNotFoundError", "PermissionError"}
    assert probe["write_file"] in {"PermissionError", "OSError"}
    assert probe["root_entries"] in ([], "PermissionError"), "the host's root is out of sight"


def test_privileges_are_dropped(probe) -> None:
    needs(probe, "drop_privileges")
    assert probe["uid"] == 200999


def test_seccomp_blocks_sockets_processes_signals_and_rlimit_changes(probe) -> None:
    needs(probe, "seccomp")
    for name in ("socket", "unix_socket", "fork", "exec", "kill_parent"):
        assert probe[name] == "PermissionError", name
    assert probe["raise_rlimit"] == "ValueError"  # CPython's wording for EPERM from setrlimit
    assert probe["limit_parent"] == "PermissionError"
    assert probe["other_thread_socket"] == "PermissionError"  # the filter holds on every thread


def test_address_space_limit_holds(probe) -> None:
    assert probe["allocate_past_limit"] == "MemoryError"


@pytest.mark.parametrize("runtime", ["micropython", "wasm"])
def test_wasm_workers_hold_their_writable_memory_limit(runtime: str) -> None:
    """A wasm worker's address space holds wasmtime's reservations, so its rlimit counts
    writable memory (RLIMIT_DATA): an allocation past the limit fails there too."""
    confined = run_probe(runtime)
    assert confined["allocate_past_limit"] == "MemoryError"
    assert confined["compute"] == "allowed"


def test_network_namespace_has_no_route_out() -> None:
    if os.geteuid() != 0:
        missing("a private network namespace needs root; reported at sandbox start")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = textwrap.dedent(
            f"""
            import socket, sys
            from sandbox import isolation
            assert isolation.enter_namespaces()
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
                print("connected")
            except OSError as exc:
                print(type(exc).__name__)
            """
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONPATH": ROOT},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in {"OSError", "ConnectionRefusedError"}


def test_capabilities_report_every_layer() -> None:
    names = set(isolation.Layers().as_dict())
    assert names == {
        "rlimits", "closed_fds", "empty_env", "empty_cwd", "chroot", "drop_privileges",
        "no_new_privs", "seccomp", "network_namespace",
    }  # fmt: skip
