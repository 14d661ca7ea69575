"""What a node keeps in memory about one tenant while it has work: slots, runs in flight,
the rules whose run is still going, today's usage against the quota."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, datetime

from engine.runner import Claimed
from tenants.quotas import TenantProfile
from tenants.usage import Usage


@dataclass
class TenantState:
    profile: TenantProfile
    usage_day: date
    usage: Usage
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    in_flight: dict[int, Claimed] = field(default_factory=dict)
    #: Rules with an action waiting for the rule's previous run to end (overlap queue_one).
    deferred: set[str] = field(default_factory=set)
    loop_task: asyncio.Task[None] | None = None
    slots: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.slots = asyncio.Semaphore(self.profile.quotas.max_concurrency)

    @property
    def tenant_id(self) -> str:
        return self.profile.tenant_id

    @property
    def claim_room(self) -> int:
        """How many more actions may be claimed now: a few per slot, queued for the sandbox."""
        return max(0, 4 * self.profile.quotas.max_concurrency - len(self.in_flight))

    def busy_since(self, rule_id: str | None) -> datetime | None:
        """When this node claimed the rule's earliest run still in flight."""
        if rule_id is None:
            return None
        times = [c.claimed_at for c in self.in_flight.values() if c.action["rule_id"] == rule_id]
        return min(times, default=None)

    def is_over_quota(self) -> bool:
        q = self.profile.quotas
        return (
            self.usage.runs >= q.max_runs_per_day or self.usage.cpu_ms >= q.max_cpu_s_per_day * 1000
        )

    def count_run(self, day: date, cpu_ms: int) -> None:
        if day != self.usage_day:
            self.usage_day, self.usage = day, Usage(0, 0)
        self.usage = Usage(self.usage.runs + 1, self.usage.cpu_ms + cpu_ms)

    @property
    def is_idle(self) -> bool:
        return self.loop_task is None and not self.in_flight
