"""`bench.cpu` splits a process's CPU between its main thread and the others, ended ones too
(a thread pool's threads come and go during a drain: their CPU must not vanish with them)."""

from __future__ import annotations

import os
import threading
import time

from bench.cpu import cpu_use


def _spin(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def test_a_thread_that_ended_still_counts_and_the_main_thread_apart() -> None:
    before = cpu_use([os.getpid()])
    worker = threading.Thread(target=_spin, args=(0.3,))
    worker.start()
    worker.join()
    _spin(0.2)
    used = cpu_use([os.getpid()]) - before
    # /proc counts in clock ticks (10 ms): bounds with room for that and for pytest's own work
    assert 0.25 <= used.other_threads_s <= 0.45
    assert 0.15 <= used.event_loop_s <= 0.45
