"""The zygote: a small, dedicated process that forks worker processes ahead of demand.

Forking from the engine would copy a big parent (slow) and leak its state into workers, so the
engine starts this module as a fresh interpreter (`python -m sandbox.zygote FD CONFIG`) once.
It loads everything a worker of each configured runtime needs (`sandbox.executors`: the
RestrictedPython builtins, the wasmtime engines, the MicroPython interpreter compiled once and
shared read-only by every worker), enters an empty network namespace, and then serves two
kinds of traffic on its SOCK_SEQPACKET control socket:

- engine -> zygote `{"spawn": n}`: fork n workers; each is sent back, once it is confined and
  ready (it says so with one byte), as `{"pid": p}` with three file descriptors (the worker's
  socket, a pidfd to kill it by, and its output window);
- zygote -> engine `{"exit": p, "signal": s, "cpu_s": c, "peak_memory_bytes": m}` when a
  worker has been reaped (how it ended, even when it was killed).

A worker serves jobs of one tenant and runtime until the engine recycles it (`sandbox.warm`).
When the engine goes away (EOF), the zygote kills its workers and exits; workers die with the
zygote too (PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path

from sandbox import isolation, output_window, seccomp
from sandbox.executors import Executors
from sandbox.output_window import OutputWindow
from sandbox.worker import Worker

UID_BASE = 200_000
UID_SPAN = 50_000
#: How long a new worker may take to confine itself before it is given up.
READY_TIMEOUT_S = 10.0
READY = b"r"


class Zygote:
    def __init__(self, control: socket.socket, config: dict[str, object]) -> None:
        self._control = control
        cache_dir = config.get("cache_dir")
        self._executors = Executors.load(
            [str(name) for name in config["runtimes"]],  # type: ignore[attr-defined]
            Path(str(cache_dir)) if cache_dir else None,
        )
        self._layers = isolation.detect(isolation.enter_namespaces())
        self._bpf = seccomp.build_filter()
        self._dirs: dict[int, str] = {}
        self._pidfds: dict[int, int] = {}
        self._counter = 0

    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self._send({"layers": self._layers.as_dict()})
        gc.freeze()  # keep the collector from touching (and so copying) inherited pages
        selector = selectors.DefaultSelector()
        selector.register(self._control, selectors.EVENT_READ, "control")
        selector.register(wake_r, selectors.EVENT_READ, "child")
        while True:
            for key, _ in selector.select():
                if key.data == "child":
                    os.read(wake_r, 4096)
                    self._reap()
                elif not self._on_request():
                    self._shutdown()
                    return

    def _on_request(self) -> bool:
        try:
            data = self._control.recv(4096)
        except OSError:
            return False
        if not data:
            return False
        for _ in range(min(int(json.loads(data).get("spawn", 0)), 64)):
            self._spawn()
        return True

    def _spawn(self) -> None:
        self._counter += 1
        uid = UID_BASE + self._counter % UID_SPAN
        root_dir = tempfile.mkdtemp(prefix="cadenza-run-")
        os.chmod(root_dir, 0o555)
        engine_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        window_fd = output_window.create()
        pid = os.fork()
        if pid == 0:
            self._become_worker(worker_end, window_fd, root_dir, uid)
        worker_end.close()
        pidfd = os.pidfd_open(pid)
        self._dirs[pid] = root_dir
        self._pidfds[pid] = pidfd
        if _is_ready(engine_end):
            payload = json.dumps({"pid": pid}).encode()
            with contextlib.suppress(OSError):  # engine gone: EOF on the control socket follows
                socket.send_fds(self._control, [payload], [engine_end.fileno(), pidfd, window_fd])
        else:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            self._send({"unready": pid})
        engine_end.close()
        os.close(window_fd)

    def _become_worker(self, sock: socket.socket, window_fd: int, root_dir: str, uid: int) -> None:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            window = OutputWindow(window_fd)  # mapped: it outlives its descriptor
            keep = self._executors.shared_fds | {sock.fileno()}
            baseline = isolation.prepare_worker(
                self._layers, keep, root_dir, uid, self._bpf, self._executors.start_threads
            )
            sock.sendall(READY)  # the engine measures its memory from here on
            Worker(sock, window, self._executors.by_runtime, baseline).serve()
        finally:
            os._exit(70)

    def _reap(self) -> None:
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            shutil.rmtree(self._dirs.pop(pid, ""), ignore_errors=True)
            os.close(self._pidfds.pop(pid))
            self._send(
                {
                    "exit": pid,
                    "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                    "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                    "cpu_s": usage.ru_utime + usage.ru_stime,
                    "peak_memory_bytes": usage.ru_maxrss * 1024,
                }
            )

    def _send(self, message: dict[str, object]) -> None:
        with contextlib.suppress(OSError):
            self._control.send(json.dumps(message).encode())

    def _shutdown(self) -> None:
        for pidfd in self._pidfds.values():
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        for pid in list(self._dirs):
            os.waitpid(pid, 0)
            shutil.rmtree(self._dirs.pop(pid), ignore_errors=True)


def _is_ready(sock: socket.socket) -> bool:
    """Whether a new worker confined itself in time (it then sends one byte)."""
    sock.settimeout(READY_TIMEOUT_S)
    try:
        return sock.recv(1) == READY
    except OSError:
        return False
    finally:
        sock.settimeout(None)


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    Zygote(control, json.loads(sys.argv[2])).serve()


if __name__ == "__main__":
    main()
