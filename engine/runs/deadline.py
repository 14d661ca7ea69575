"""When a run's time limit ends, for the calls the engine makes on the script's behalf.

The sandbox counts a run's limit from the moment its worker takes the job, not from when the
engine prepared the run: on a busy node the wait for a worker can be longer than the limit
itself. A deadline counted from the preparation would refuse a script's first HTTP or
capability call as out of time while the script had barely started, so the deadline starts
when the sandbox says the worker has the job (`HostApi.begin`).
"""

from __future__ import annotations

import time

#: Time kept back from the run's remaining time, to answer the script before its deadline.
MARGIN_S = 0.1


class RunDeadline:
    def __init__(self, limit_s: float) -> None:
        self._limit_s = limit_s
        #: Counted from now until `start` (a host used without the sandbox is never started).
        self._ends_s = time.monotonic() + limit_s

    def start(self) -> None:
        """The worker has the job: the limit counts from now."""
        self._ends_s = time.monotonic() + self._limit_s

    def left_s(self) -> float:
        """Seconds a call may still take, less the margin (<= 0: none)."""
        return self._ends_s - time.monotonic() - MARGIN_S
