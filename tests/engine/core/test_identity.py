"""A node's name: kept across restarts, never shared by two live processes. Holders are real
processes (a `sleep` stands in for another node of this machine), names live in the database."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.errors import NodeNameInUse
from engine.loop.identity import Incarnation, NodeName, claim_name
from engine.store import nodes

HOST = socket.gethostname()
LEASE_S = 30.0


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[bytes]]:
    """Another live process of this machine."""
    process = subprocess.Popen(["sleep", "60"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


async def _hold(db: AsyncEngine, name: str, holder: Incarnation, age_s: float = 0) -> None:
    async with db.begin() as conn:
        at = START - timedelta(seconds=age_s)
        assert await nodes.take_name(conn, name, None, holder.host, holder.token, at)


async def _claim(db: AsyncEngine, configured: str = "") -> NodeName:
    async with db.begin() as conn:
        return await claim_name(conn, configured, START, LEASE_S)


async def test_the_default_name_is_the_hosts_and_comes_back_after_a_restart(
    db: AsyncEngine, other_process: subprocess.Popen[bytes]
) -> None:
    await _hold(db, HOST, Incarnation.of_process(other_process.pid))
    assert await _claim(db) == NodeName(f"{HOST}-2", inherits_claims=True)  # host is held
    other_process.kill()
    other_process.wait()
    assert await _claim(db) == NodeName(HOST, inherits_claims=True), "its holder died"


async def test_a_configured_name_held_by_a_live_process_is_refused(
    db: AsyncEngine, other_process: subprocess.Popen[bytes]
) -> None:
    await _hold(db, "n1", Incarnation.of_process(other_process.pid), age_s=10 * LEASE_S)
    with pytest.raises(NodeNameInUse, match="'n1' is held by a live node"):
        await _claim(db, "n1")  # stale heartbeat, but its process runs: alive


async def test_another_machines_name_is_free_once_its_heartbeat_is_old(db: AsyncEngine) -> None:
    elsewhere = Incarnation("elsewhere.example", "boot/1234/5678")
    await _hold(db, "n1", elsewhere)
    with pytest.raises(NodeNameInUse, match=r"elsewhere\.example"):
        await _claim(db, "n1")
    await _hold(db, "n2", elsewhere, age_s=2 * LEASE_S)
    assert await _claim(db, "n2") == NodeName("n2", inherits_claims=True)


async def test_services_of_one_process_share_a_configured_name(db: AsyncEngine) -> None:
    assert await _claim(db, "n1") == NodeName("n1", inherits_claims=True)
    assert await _claim(db, "n1") == NodeName("n1", inherits_claims=False), "nothing to take back"
