"""What the supervisor hands each child process: the settings and where the shared files are.

Children are forked from the supervisor once it has imported the application (a start costs no
second import) and before it runs anything that a fork would copy half-way: when it forks, its
event loop, database connections and sandbox from the start-up work are closed, and it runs no
thread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from api.settings import Settings
from tenants.keys import IssuedKey

#: Linux's prctl option asking for a signal when the parent process dies.
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Layout:
    """One `serve`'s shared places, in a private directory the supervisor removes at exit."""

    settings: Settings
    run_dir: Path
    #: The demo tenant `serve` has just created, whose sample rule the engine process adds
    #: (a rule is saved through a sandbox, and the engine process has one).
    demo: IssuedKey | None = None

    @property
    def wake_path(self) -> Path:
        """The engine's wake socket (`api.serving.wake`)."""
        return self.run_dir / "wake"

    @property
    def link_port_path(self) -> Path:
        """Where the engine process writes its loopback listener's port once its node runs."""
        return self.run_dir / "engine-link.port"

    @property
    def throttles_path(self) -> Path:
        """The request and failed-authentication buckets every API process shares
        (`api.shared_buckets`)."""
        return self.run_dir / "throttles.sqlite"

    @property
    def api_metrics_dir(self) -> Path:
        """Where the API processes keep their request counters (prometheus-client's
        multiprocess mode), read by the engine's metrics listener."""
        return self.run_dir / "api-metrics"


@dataclass(frozen=True)
class EngineStarted:
    """What the engine process reports once its node runs."""

    #: The `--metrics-address` listener's port, if asked for.
    public_metrics_port: int | None


@dataclass(frozen=True)
class StartFailed:
    """The engine process could not start; `message` says why and what to do."""

    message: str


def become_child() -> None:
    """A child leaves Ctrl-C to the supervisor (its own process group: the terminal's signals
    reach the supervisor only, which stops every child in order) and is stopped if the
    supervisor is killed, rather than living on unsupervised. The supervisor's own signal
    handlers, inherited with the fork, give way to the defaults until the child sets its own."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    os.setpgrp()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
