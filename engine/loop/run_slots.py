"""A node's run slots, shared fairly between tenants.

A run needs one of the node's `total` slots, and its tenant may hold at most its own
`max_concurrency` of them. Runs cannot be interrupted, so fairness is kept when slots are
handed out, not by taking them back:

- **max-min**: a freed slot goes to the waiting tenant that holds the fewest slots (ties: the
  one waiting longest), so tenants with due work converge to equal shares whatever their
  backlog;
- **a reserve for newcomers**: a tenant takes one of the last `reserve` free slots only while
  it holds less than its share (`total` split over the tenants holding or waiting for slots,
  counting at least two). A tenant alone on the node therefore leaves the reserve free, and
  a tenant whose work comes due while another saturates the node starts at once instead of
  waiting for one of the other's runs to end. An idle tenant's share is otherwise the busy
  ones': the reserve is all that is kept back.

Within a tenant, waiting runs start highest priority first, then in the order they came:
an action claimed later (it was read after others were claimed ahead) still overtakes
lower-priority runs waiting for a slot.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass, field


@dataclass(order=True)
class _Waiter:
    #: (-priority, arrival): the heap pops the highest priority, then the earliest.
    rank: tuple[int, int]
    future: asyncio.Future[None] = field(compare=False)
    #: Most slots its tenant may hold (the tenant's `max_concurrency`).
    limit: int = field(compare=False)


def reserve_for(total: int) -> int:
    """Slots kept for tenants below their share: an eighth of the node, at least one (none
    on a node of one slot)."""
    return 0 if total < 2 else max(1, total // 8)


class RunSlots:
    def __init__(self, total: int) -> None:
        self.total = total
        self.reserve = reserve_for(total)
        self._held: dict[str, int] = {}
        self._in_use = 0
        self._waiting: dict[str, list[_Waiter]] = {}
        self._arrivals = itertools.count()

    @property
    def free(self) -> int:
        return self.total - self._in_use

    def held(self, tenant_id: str) -> int:
        return self._held.get(tenant_id, 0)

    async def acquire(self, tenant_id: str, limit: int, priority: int = 0) -> None:
        """Wait for a slot for `tenant_id` (which may hold at most `limit`); `release` it."""
        future = asyncio.get_running_loop().create_future()
        queue = self._waiting.setdefault(tenant_id, [])
        heapq.heappush(queue, _Waiter((-priority, next(self._arrivals)), future, limit))
        self._hand_out()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(tenant_id)  # granted as it was cancelled: give it back
            else:
                self._forget(tenant_id, future)
            raise

    def release(self, tenant_id: str) -> None:
        self._in_use -= 1
        held = self._held.pop(tenant_id) - 1
        if held > 0:
            self._held[tenant_id] = held
        self._hand_out()

    def _forget(self, tenant_id: str, future: asyncio.Future[None]) -> None:
        queue = [w for w in self._waiting.get(tenant_id, []) if w.future is not future]
        heapq.heapify(queue)
        self._waiting[tenant_id] = queue
        self._drop_if_empty(tenant_id)
        self._hand_out()

    def _drop_if_empty(self, tenant_id: str) -> None:
        if not self._waiting.get(tenant_id):
            self._waiting.pop(tenant_id, None)

    def _share(self) -> int:
        active = len(self._held.keys() | self._waiting.keys())
        return max(1, self.total // max(2, active))

    def _next_taker(self) -> str | None:
        """The waiting tenant that may take a free slot and holds the fewest (then the one
        whose first run came first), if any. One pass: it runs at every start and end."""
        share, from_pool = self._share(), self.free > self.reserve
        best, best_rank = None, (0, 0)
        for tenant_id, queue in self._waiting.items():
            held = self._held.get(tenant_id, 0)
            if held >= queue[0].limit or (not from_pool and held >= share):
                continue
            rank = (held, queue[0].rank[1])
            if best is None or rank < best_rank:
                best, best_rank = tenant_id, rank
        return best

    def _hand_out(self) -> None:
        """Grant free slots, each to the eligible waiting tenant holding the fewest."""
        while self.free > 0 and self._waiting:
            tenant_id = self._next_taker()
            if tenant_id is None:
                return
            waiter = heapq.heappop(self._waiting[tenant_id])
            self._drop_if_empty(tenant_id)
            if waiter.future.done():  # cancelled, its task not yet told: not a taker
                continue
            self._held[tenant_id] = self._held.get(tenant_id, 0) + 1
            self._in_use += 1
            waiter.future.set_result(None)
