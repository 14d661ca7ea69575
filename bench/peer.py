"""The peer: APScheduler 3.x with its SQLAlchemyJobStore, firing a no-op Python function.

It runs in this process (a BackgroundScheduler, its default thread pool of 10) on the same kind
of database file as Cadenza. `misfire_grace_time=None`, or APScheduler drops most of a burst
as misfired. Jobs are loaded in one transaction before the clock starts, exactly as Cadenza's
actions are, so only firing is measured. On SQLite it runs twice: with its defaults (rollback
journal, synchronous=FULL) and with Cadenza's settings (WAL, synchronous=NORMAL).
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from apscheduler.job import Job
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from sqlalchemy import Engine, create_engine, event

from bench.databases import sync_url

OURS = "cadenza"


class Peer(StrEnum):
    """The peer configurations a scenario compares against, by their report label."""

    DEFAULTS = "apscheduler (defaults)"
    """SQLAlchemyJobStore on a SQLite file exactly as APScheduler opens it."""
    TUNED = "apscheduler (WAL, synchronous=NORMAL)"
    """The same, with the SQLite settings Cadenza uses."""
    POSTGRES = "apscheduler"
    """SQLAlchemyJobStore on PostgreSQL (psycopg)."""


def peers_for(database: str) -> list[Peer]:
    """The peer configurations measured on `database` ("sqlite" or "postgresql")."""
    return [Peer.DEFAULTS, Peer.TUNED] if database == "sqlite" else [Peer.POSTGRES]


class _Tally:
    """What the fired jobs report back: lateness of each, and when all have fired."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lateness_s: list[float] = []
        self.expected = 0
        self.done = threading.Event()

    def reset(self, expected: int) -> None:
        with self.lock:
            self.lateness_s = []
            self.expected = expected
            self.done.clear()


_tally = _Tally()


def fire(scheduled_ts: float) -> None:
    """The no-op job: note how late it started, nothing else."""
    lateness_s = time.time() - scheduled_ts
    with _tally.lock:
        _tally.lateness_s.append(lateness_s)
        if len(_tally.lateness_s) >= _tally.expected:
            _tally.done.set()


def hold(seconds: float) -> None:
    """A job that keeps its thread busy, like a script waiting near its timeout (not tallied)."""
    time.sleep(seconds)


def _wal_normal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _engine(url: str, peer: Peer) -> Engine:
    engine = create_engine(sync_url(url))
    if peer is Peer.TUNED:
        event.listen(engine, "connect", _wal_normal)
    return engine


def _load(
    scheduler: BackgroundScheduler,
    store: SQLAlchemyJobStore,
    due: Sequence[float],
    busy: Sequence[tuple[float, float]],
) -> None:
    """Insert one date-triggered job per due instant (and a `hold` job per (due, seconds) of
    `busy`), in one transaction."""
    jobs = [("fire", due_ts, (due_ts,)) for due_ts in due]
    jobs += [("hold", due_ts, (seconds,)) for due_ts, seconds in busy]
    rows = []
    for index, (func, due_ts, args) in enumerate(jobs):
        run_at = datetime.fromtimestamp(due_ts, UTC)
        job = Job(
            scheduler,
            id=f"job-{index}",
            func=f"bench.peer:{func}",
            trigger=DateTrigger(run_date=run_at),
            executor="default",
            args=args,
            kwargs={},
            name="fire",
            misfire_grace_time=None,
            coalesce=False,
            max_instances=1,
            next_run_time=run_at,
        )
        state = pickle.dumps(job.__getstate__(), store.pickle_protocol)
        rows.append({"id": job.id, "next_run_time": due_ts, "job_state": state})
    store.jobs_t.create(store.engine, checkfirst=True)
    with store.engine.begin() as conn:
        conn.execute(store.jobs_t.insert(), rows)


def _wait_until_removed(store: SQLAlchemyJobStore, timeout_s: float = 30.0) -> None:
    """Until the scheduler has removed every fired job from the store: it removes a job after
    handing it to its thread pool, so the last job can fire first, and a shutdown in between
    made the scheduler's thread fail on a job it could no longer find."""
    deadline = time.monotonic() + timeout_s
    while store.get_next_run_time() is not None and time.monotonic() < deadline:
        time.sleep(0.01)


def fire_all(
    url: str,
    peer: Peer,
    offsets_s: Sequence[float],
    lead_s: float,
    busy: Sequence[tuple[float, float]] = (),
) -> list[float]:
    """Fire one job at each `lead_s + offset` from now; return each job's lateness in ms.
    `busy` adds (offset, seconds) jobs that hold a worker thread that long, untallied.

    Raises TimeoutError if not every job fired within the last offset + 300 s.
    """
    engine = _engine(url, peer)
    store = SQLAlchemyJobStore(engine=engine)
    scheduler = BackgroundScheduler(
        jobstores={"default": store},
        job_defaults={"misfire_grace_time": None, "coalesce": False},
        timezone=UTC,
    )
    start_ts = time.time() + lead_s
    _tally.reset(len(offsets_s))
    held = [(start_ts + offset, seconds) for offset, seconds in busy]
    _load(scheduler, store, [start_ts + offset for offset in offsets_s], held)
    if time.time() > start_ts:
        raise RuntimeError(f"loading {len(offsets_s)} jobs took longer than the {lead_s} s lead")
    scheduler.start()
    try:
        if not _tally.done.wait(timeout=max(offsets_s, default=0) + lead_s + 300):
            raise TimeoutError(f"{peer}: only {len(_tally.lateness_s)} of {len(offsets_s)} fired")
        _wait_until_removed(store)
    finally:
        scheduler.shutdown(wait=True)
        engine.dispose()
    with _tally.lock:
        return [value * 1000 for value in _tally.lateness_s]
