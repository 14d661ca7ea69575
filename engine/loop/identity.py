"""Which node this process is: a name that survives a restart, and which process holds it.

Claims, runs and tenant leases carry the node's name. A process that restarts under the name
it had knows that every claim under that name belongs to its own dead previous incarnation,
and takes them back at once (`engine.loop.takeback`, `Loss.RESTARTED`) instead of waiting for
their leases to expire; its tenant leases are its own already.

The name is `CADENZA_NODE_NAME` when set, else the first of `<host>`, `<host>-2`, … that no
live process holds: on SQLite (one node per file) that is always `<host>`; several nodes of
one machine on PostgreSQL each get the same name back after a restart as long as they restart
in the order they started (a node takes the first name whose holder is gone). A name's holder
(`engine_nodes`) is alive, on this machine, while its process runs (pid, start time and boot
id, so a reused pid is not mistaken for it; Linux's /proc), and on another machine while it
heartbeats within `lease_s`. A configured name held by a live process is refused: two live
nodes must never share a name.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.errors import NodeNameInUse
from engine.store import nodes

#: Default names tried per machine before giving up.
MAX_NODES_PER_HOST = 64


@dataclass(frozen=True)
class Incarnation:
    """One process: its machine and a token that no other process ever had."""

    host: str
    token: str

    @classmethod
    def current(cls) -> Incarnation:
        return cls.of_process(os.getpid())

    @classmethod
    def of_process(cls, pid: int) -> Incarnation:
        """The running process `pid` of this machine."""
        return cls(socket.gethostname(), f"{_boot_id()}/{pid}/{_start_ticks(pid)}")

    @property
    def is_local(self) -> bool:
        return self.host == socket.gethostname()

    def is_running(self) -> bool:
        """Whether this process (of this machine) still runs."""
        boot_id, _, rest = self.token.partition("/")
        pid, _, ticks = rest.partition("/")
        if boot_id != _boot_id() or not pid.isdigit() or not ticks:
            return False
        return _start_ticks(int(pid)) == ticks


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "-"


def _start_ticks(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" if it does not exist)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


@dataclass(frozen=True)
class NodeName:
    """The name this process runs under."""

    name: str
    #: Whether claims under the name may belong to a previous holder that is gone.
    inherits_claims: bool


async def claim_name(
    conn: AsyncConnection, configured: str, now: datetime, lease_s: float
) -> NodeName:
    """Take `configured` (or the first free default name) for this process."""
    me = Incarnation.current()
    candidates = [configured] if configured else _defaults(me.host)
    for name in candidates:
        row = await nodes.get_node(conn, name)
        holder = _holder(row, now, lease_s)
        if holder == me:
            return NodeName(name, inherits_claims=False)  # another service of this process
        if holder is None and await nodes.take_name(conn, name, row, me.host, me.token, now):
            return NodeName(name, inherits_claims=True)
        if configured:
            raise NodeNameInUse(_in_use(name, row, now))
    raise NodeNameInUse(f"every default node name of {me.host} is held by a live node")


def _defaults(host: str) -> list[str]:
    return [host] + [f"{host}-{n}" for n in range(2, MAX_NODES_PER_HOST + 1)]


def _holder(row: RowMapping | None, now: datetime, lease_s: float) -> Incarnation | None:
    """The live process holding a name, if one does: on this machine, whether its process
    runs (a node whose loop stalled past its heartbeat is still alive); on another, whether
    it heartbeat within `lease_s`."""
    if row is None:
        return None
    holder = Incarnation(row["host"] or "", row["incarnation"] or "")
    if holder.is_local:
        return holder if holder.is_running() else None
    return holder if row["heartbeat_at"] >= now - timedelta(seconds=lease_s) else None


def _in_use(name: str, row: RowMapping | None, now: datetime) -> str:
    assert row is not None
    age_s = (now - row["heartbeat_at"]).total_seconds()
    return (
        f"node name {name!r} is held by a live node on {row['host'] or 'an unknown host'} "
        f"(process {row['incarnation']}, heartbeat {age_s:.0f} s ago): give this node "
        "another name (CADENZA_NODE_NAME), or stop that node first"
    )
