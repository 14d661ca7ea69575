"""`serve`'s supervisor notices a child's end however late its exit code can be read.

A process killed with SIGKILL closes its files (its sentinel then reads as ended) a moment
before it becomes a zombie whose exit code `waitpid` can read. A supervisor that waited only on
the children whose exit code was still unknown once dropped such a death unlogged, and `serve`
went on serving without its engine (an intermittent failure of the killed-engine test).
Here the dying child is a stand-in whose exit code reads as unknown for its first reads; the
API process beside it is a real forked process that ends on SIGTERM."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from api.serving.layout import Layout
from api.serving.supervisor import EXIT_CHILD_DIED, Supervisor
from api.settings import Settings

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _EndedLate:
    """A child that has ended, whose exit code reads as unknown `late` times first."""

    def __init__(self, late: int, pid: int) -> None:
        self.pid = pid
        self._late = late
        reading, writing = os.pipe()
        os.close(writing)
        self.sentinel = reading

    @property
    def exitcode(self) -> int | None:
        if self._late > 0:
            self._late -= 1
            return None
        return -signal.SIGKILL

    def terminate(self) -> None:
        os.kill(self.pid, signal.SIGTERM)


def _api_process() -> None:
    """An API process's stand-in: it ends on SIGTERM, whatever handler pytest had."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    time.sleep(60)


@pytest.mark.parametrize("late", [0, 1, 2, 5])
def test_a_death_read_late_is_logged_and_stops_serve(
    tmp_path: Path, late: int, caplog: pytest.LogCaptureFixture
) -> None:
    api = multiprocessing.get_context("fork").Process(target=_api_process)
    api.start()
    # A process that may receive the supervisor's SIGTERM in the stand-in's name.
    signalled = subprocess.Popen(["sleep", "60"])
    engine = _EndedLate(late, signalled.pid)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'unused.db'}", stop_grace_s=1)
    handlers_before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    codes: list[int] = []
    try:
        with Supervisor(Layout(settings, tmp_path)) as supervisor:
            supervisor.children["engine process"] = engine  # type: ignore[assignment]
            supervisor.children["API process 1"] = api
            waiter = threading.Thread(target=lambda: codes.append(supervisor.run()), daemon=True)
            with caplog.at_level(logging.INFO, "cadenza.serve"):
                waiter.start()
                waiter.join(timeout=30)
        assert codes == [EXIT_CHILD_DIED], "the supervisor kept waiting after its engine died"
        assert f"the engine process (pid {signalled.pid}) was killed by SIGKILL" in caplog.text
        assert api.exitcode == -signal.SIGTERM  # stopped by the supervisor, not left running
        assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == handlers_before
    finally:
        api.kill()
        api.join()
        signalled.kill()
        signalled.wait()
        os.close(engine.sentinel)
