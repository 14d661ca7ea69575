"""The writer's turn across processes (`tenants.sqlite_turn`): taken when a transaction opens
a write, given back however it ends (commit, error, cancellation, a killed holder), never
taken by a read; and a writer in another process waits for it instead of for SQLite's sleeps."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from support.sqlite_tables import items, items_metadata, sqlite_with

from tenants.sqlite_turn import SUFFIX


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "turn.db"


@pytest.fixture
async def engine(path: Path) -> AsyncIterator[AsyncEngine]:
    async with sqlite_with(items_metadata, path) as engine:
        yield engine


def is_free(path: Path) -> bool:
    """Whether another open file (another process, as far as flock goes) could take the turn."""
    fd = os.open(str(path) + SUFFIX, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


async def test_a_write_holds_the_turn_until_it_commits(engine: AsyncEngine, path: Path) -> None:
    async with engine.begin() as conn:
        await conn.execute(select(items))
        assert is_free(path), "a read took the writer's turn"
        await conn.execute(insert(items).values(id=1, name="a"))
        assert not is_free(path)
    assert is_free(path)


async def test_a_failed_write_gives_the_turn_back(engine: AsyncEngine, path: Path) -> None:
    async with engine.begin() as conn:
        await conn.execute(insert(items).values(id=1, name="a"))
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn:
            await conn.execute(insert(items).values(id=1, name="again"))
    assert is_free(path)
    async with engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(items)) == 1


async def test_a_cancelled_write_gives_the_turn_back(engine: AsyncEngine, path: Path) -> None:
    inside = asyncio.Event()

    async def write_then_wait() -> None:
        async with engine.begin() as conn:
            await conn.execute(insert(items).values(id=1, name="a"))
            inside.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(write_then_wait())
    await inside.wait()
    assert not is_free(path)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert is_free(path)
    async with engine.begin() as conn:  # and the next write goes through
        await conn.execute(insert(items).values(id=2, name="b"))


#: Another process's writer: takes the turn as the driver does, then opens a write
#: transaction and holds both until it is killed.
HOLDER = """
import fcntl, os, sqlite3, sys
fd = os.open(sys.argv[1] + "-writer", os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
conn = sqlite3.connect(sys.argv[1])
conn.execute("INSERT INTO items (id, name) VALUES (100, 'holder')")
print("holding", flush=True)
sys.stdin.read()
"""


async def test_a_write_waits_for_another_process_turn_and_a_killed_holder_lets_go(
    engine: AsyncEngine, path: Path
) -> None:
    """Another process holds the turn (through the product's own driver it would be the same
    flock); our write waits for it, not failing, and goes through once the holder is killed."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        assert not is_free(path)

        async def write() -> None:
            async with engine.begin() as conn:
                await conn.execute(insert(items).values(id=1, name="a"))

        writing = asyncio.create_task(write())
        # Nothing to await for "still waiting": give the write time to go wrong, then look.
        await asyncio.sleep(0.3)
        assert not writing.done(), "the write did not wait for the other process's turn"
        holder.send_signal(signal.SIGKILL)
        await asyncio.wait_for(writing, 30)
    async with engine.connect() as conn:
        names = (await conn.execute(select(items.c.name))).scalars().all()
    assert names == ["a"], "the killed holder's uncommitted row survived"
    assert is_free(path)
