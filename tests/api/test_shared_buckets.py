"""The buckets the API processes of one `serve` share answer exactly as one bucket in memory
would, whichever process asks, and lose no token to a race between real processes."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from api.ratelimit import TokenBuckets
from api.shared_buckets import SharedTokenBuckets, prepare

#: (which process, key, per-minute limit, take or only ask, seconds that pass before).
VISITS = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.sampled_from(["a", "b"]),
        st.sampled_from([1, 3, 60]),
        st.booleans(),
        st.floats(0, 30, allow_nan=False),
    ),
    max_size=60,
)


class Clock:
    def __init__(self) -> None:
        self.now_s = 1_000.0

    def __call__(self) -> float:
        return self.now_s


@settings(max_examples=150, deadline=None)
@given(visits=VISITS)
def test_shared_buckets_answer_as_one_bucket_in_memory(tmp_path_factory, visits) -> None:
    path = tmp_path_factory.mktemp("buckets") / "throttles.sqlite"
    clock = Clock()
    processes = [SharedTokenBuckets(path, "requests", clock) for _ in range(3)]
    alone = TokenBuckets(clock)
    for process, key, per_minute, taking, elapsed_s in visits:
        clock.now_s += elapsed_s
        shared = processes[process]
        if taking:
            assert shared.take(key, per_minute) == alone.take(key, per_minute)
        else:
            assert shared.wait_s(key, per_minute) == alone.wait_s(key, per_minute)


def test_namespaces_do_not_share_a_bucket(tmp_path: Path) -> None:
    path = tmp_path / "throttles.sqlite"
    requests = SharedTokenBuckets(path, "requests")
    failures = SharedTokenBuckets(path, "auth-failures")
    assert requests.take("127.0.0.2", 1) is None
    assert requests.take("127.0.0.2", 1) is not None
    assert failures.take("127.0.0.2", 1) is None


def test_a_prepared_file_opens_while_another_connection_holds_it(tmp_path: Path) -> None:
    """What lets `serve`'s API processes start together: opening a prepared file needs no
    lock, so it never waits for, nor races, another transaction or mode switch (an open that
    needed the lock here would wait out its busy timeout and fail: database is locked)."""
    path = tmp_path / "throttles.sqlite"
    prepare(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        opened = SharedTokenBuckets(path, "requests")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert opened.take("tenant", 1) is None


PER_MINUTE = 120
TAKERS = 4


def _take_all(path: Path, attempts: int, taken: multiprocessing.Queue[int]) -> None:
    buckets = SharedTokenBuckets(path, "requests")
    taken.put(sum(buckets.take("tenant", PER_MINUTE) is None for _ in range(attempts)))


def test_real_processes_racing_for_one_bucket_take_each_token_once(tmp_path: Path) -> None:
    path = tmp_path / "throttles.sqlite"
    prepare(path)
    fork = multiprocessing.get_context("fork")
    taken: multiprocessing.Queue[int] = fork.Queue()
    started = time.monotonic()
    racers = [fork.Process(target=_take_all, args=(path, 100, taken)) for _ in range(TAKERS)]
    for racer in racers:
        racer.start()
    counts = [taken.get(timeout=60) for _ in racers]
    for racer in racers:
        racer.join(timeout=60)
    refilled = (time.monotonic() - started) * PER_MINUTE / 60
    # 400 attempts for 120 tokens: each process alone would have taken 100.
    assert PER_MINUTE <= sum(counts) <= PER_MINUTE + int(refilled) + 1, (counts, refilled)
