"""A clean stop (SIGTERM): nothing claimed is lost, and no attempt is recorded that did not run.

1. Stop claiming: the dispatcher, the tenant loops and the housekeeping end.
2. Give back every claim whose run has not started (waiting for its due time or a slot): it
   is pending again as it was, its attempt not counted.
3. Let the runs that started finish, for up to the grace period (`stop_grace_s`, or until a
   second signal); they are recorded as usual, their effects committed.
4. Runs still going at the end of the grace are interrupted and taken back (`Loss.STOPPED`):
   each is recorded as an interrupted attempt (outcome `killed`) and runs again, without
   spending an attempt of its rule's.
5. Once everything is recorded: release the tenant leases and leave, so other nodes (or this
   one, restarted) take the tenants over at once.

The completer and the lease renewal run until step 5: a long drain keeps its leases.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any, Protocol

from engine.deps import Deps
from engine.loop.run_tasks import RunTasks
from engine.loop.takeback import Loss, take_back
from engine.runs.recorder import Completer
from engine.store import claims, nodes


class Node(Protocol):
    """What a stop needs of the supervisor it stops (`engine.loop.supervisor.Supervisor`)."""

    deps: Deps
    is_stopping: bool
    services: list[asyncio.Task[Any]]
    keepers: list[asyncio.Task[Any]]
    runs: RunTasks
    completer: Completer
    hurry: asyncio.Event

    def loop_tasks(self) -> list[asyncio.Task[None]]: ...


log = logging.getLogger("cadenza.engine")
#: Longest wait for the last records to be written once the runs are done.
FLUSH_TIMEOUT_S = 30.0


async def stop(node: Node, grace_s: float) -> None:
    node.is_stopping = True
    await _cancel([*node.services, *node.loop_tasks()])
    await _give_back_unstarted(node)
    await _drain(node, grace_s)
    await _interrupt_the_rest(node)
    await _flush(node)
    await _cancel(node.keepers)
    await _leave(node)


async def _cancel(tasks: Iterable[asyncio.Task[Any] | None]) -> None:
    live = [task for task in tasks if task is not None]
    for task in live:
        task.cancel()
    for task in live:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def _give_back_unstarted(node: Node) -> None:
    unstarted = node.runs.unstarted()
    await _cancel(node.runs.task_of(c) for c in unstarted)
    if not unstarted:
        return
    async with node.deps.write() as conn:
        given = await claims.give_back(conn, {c.action.id: c.version for c in unstarted})
    log.info("stopping: gave back %d claimed actions that had not started", len(given))


async def _drain(node: Node, grace_s: float) -> None:
    """Wait for the started runs to end and be recorded, up to the grace period (or until
    `node.hurry` is set)."""
    running = list(node.runs.tasks.values())
    if not running or grace_s <= 0:
        return
    log.info(
        "stopping: waiting up to %.0f s for %d runs to finish (a second stop signal ends the wait)",
        grace_s,
        len(running),
    )
    ended = asyncio.create_task(asyncio.wait(running))
    hurry = asyncio.create_task(node.hurry.wait())
    try:
        await asyncio.wait([ended, hurry], timeout=grace_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await _cancel([ended, hurry])


async def _interrupt_the_rest(node: Node) -> None:
    """Take back the runs still going (not those that ended and wait to be recorded)."""
    going = [c for state, c in node.runs.claimed.values() if c.action.id not in state.recording]
    await _cancel(node.runs.task_of(c) for c in going)
    if not going:
        return
    await _flush(node)  # their start marks
    now = node.deps.clock.now()
    async with node.deps.write() as conn:
        ids = [c.action.id for c in going]
        rows = await claims.of_node(conn, node.deps.config.node_name, ids)
        await take_back(conn, rows, now, Loss.STOPPED)
    log.warning("stopping: interrupted %d runs still going after the grace period", len(going))


async def _flush(node: Node) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(node.completer.drained(), FLUSH_TIMEOUT_S)


async def _leave(node: Node) -> None:
    name = node.deps.config.node_name
    try:
        async with node.deps.write() as conn:
            await nodes.release(conn, name)
            await nodes.forget_node(conn, name)
    except Exception:  # the leases then expire on their own; nothing is lost
        log.exception("could not release this node's leases on stop")
