"""The node's run slots are fair by construction: a saturating tenant leaves the reserve to
others, freed slots go to the tenant holding fewest, a tenant never exceeds its own limit, and
within a tenant higher priority starts first. Checked as properties over random arrivals."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.loop.run_slots import RunSlots, reserve_for


class Holder:
    """One waiting or running run: `slot()` held until `finish()`."""

    def __init__(self, slots: RunSlots, tenant: str, limit: int, priority: int = 0) -> None:
        self.tenant = tenant
        self.priority = priority
        self.started = asyncio.Event()
        self._done = asyncio.Event()
        self.task = asyncio.create_task(self._hold(slots, limit))

    async def _hold(self, slots: RunSlots, limit: int) -> None:
        await slots.acquire(self.tenant, limit, self.priority)
        try:
            self.started.set()
            await self._done.wait()
        finally:
            slots.release(self.tenant)

    def finish(self) -> None:
        self._done.set()


async def _settle() -> None:
    """Let every task that can run do so (grants are handed out synchronously)."""
    for _ in range(5):
        await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def holders() -> AsyncIterator[list[Holder]]:
    made: list[Holder] = []
    try:
        yield made
    finally:
        for holder in made:
            holder.task.cancel()
        await asyncio.gather(*(h.task for h in made), return_exceptions=True)


def _running(made: list[Holder], tenant: str) -> int:
    return sum(1 for h in made if h.tenant == tenant and h.started.is_set() and not h.task.done())


async def test_a_saturating_tenant_leaves_the_reserve_and_a_newcomer_starts_at_once() -> None:
    slots = RunSlots(16)
    async with holders() as made:
        made += [Holder(slots, "a", limit=100) for _ in range(40)]
        await _settle()
        assert _running(made, "a") == 16 - reserve_for(16)
        newcomer = Holder(slots, "b", limit=100)
        made.append(newcomer)
        await _settle()
        assert newcomer.started.is_set(), "b started without waiting for one of a's runs"


async def test_a_lone_tenant_still_gets_the_reserve_while_below_its_share() -> None:
    slots = RunSlots(2)  # the smallest node with a reserve: a lone tenant may take both
    async with holders() as made:
        made += [Holder(slots, "a", limit=5) for _ in range(3)]
        await _settle()
        assert _running(made, "a") == 1, "the last slot is kept for a newcomer"
        made.append(Holder(slots, "b", limit=5))
        await _settle()
        assert _running(made, "b") == 1


async def test_freed_slots_go_to_the_tenant_holding_fewest_and_priority_orders_a_tenant() -> None:
    slots = RunSlots(4)
    async with holders() as made:
        a = [Holder(slots, "a", limit=4) for _ in range(3)]
        made += a
        await _settle()
        late = [Holder(slots, "b", limit=4, priority=p) for p in (0, 0, 5)]
        made += late
        await _settle()
        assert _running(made, "b") == 1 and late[0].started.is_set()
        for holder in a:
            holder.finish()
        await _settle()
        assert _running(made, "b") == 3 and late[2].started.is_set()


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(1, 12),
    limits=st.dictionaries(st.sampled_from("abcd"), st.integers(1, 6), min_size=1),
    script=st.lists(st.tuples(st.sampled_from("abcd"), st.booleans()), max_size=60),
)
def test_no_tenant_holds_more_than_its_share_while_another_waits(
    total: int, limits: dict[str, int], script: list[tuple[str, bool]]
) -> None:
    asyncio.run(_check_fairness(total, limits, script))


async def _check_fairness(
    total: int, limits: dict[str, int], script: list[tuple[str, bool]]
) -> None:
    """Random arrivals (True) and ends of a tenant's oldest run (False); after each step:
    never over the node or a tenant's limit, and a tenant waits (below its own limit) only
    when no slot is free, or only the reserve is and it holds its share already."""
    slots = RunSlots(total)
    async with holders() as made:
        for tenant, arrives in script:
            if tenant not in limits:
                continue
            if arrives:
                made.append(Holder(slots, tenant, limits[tenant]))
            else:
                running = [
                    h
                    for h in made
                    if h.tenant == tenant and h.started.is_set() and not h.task.done()
                ]
                if running:
                    running[0].finish()
            await _settle()
            _check_state(slots, made, limits, total)


def _check_state(slots: RunSlots, made: list[Holder], limits: dict[str, int], total: int) -> None:
    running = {t: _running(made, t) for t in limits}
    waiting = {t for t in limits if any(h.tenant == t and not h.started.is_set() for h in made)}
    assert sum(running.values()) <= total
    assert all(running[t] <= limits[t] for t in limits)
    active = {t for t in limits if running[t] or t in waiting}
    share = max(1, total // max(2, len(active)))
    free = total - sum(running.values())
    for t in waiting:
        if running[t] < limits[t]:
            assert free == 0 or (free <= slots.reserve and running[t] >= share), (t, running)


async def test_a_waiter_cancelled_before_it_notices_is_not_granted_a_slot() -> None:
    slots = RunSlots(2)
    async with holders() as made:
        first = Holder(slots, "a", limit=1)
        made.append(first)
        await _settle()
        waiting = [Holder(slots, "a", limit=1) for _ in range(2)]
        made += waiting
        await _settle()
        waiting[0].task.cancel()  # its future is cancelled now, its task runs later
        first.finish()  # the slot is handed out before the cancelled task resumes
        await _settle()
        assert waiting[1].started.is_set() and slots.held("a") == 1
