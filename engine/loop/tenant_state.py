"""What a node keeps in memory about one tenant while it has work: runs in flight and their
unrecorded kv writes, the rules whose run is still going, today's usage against the quota."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from engine.clock import Clock
from engine.domain.changes import Change
from engine.runs.runner import Claimed
from engine.runs.unrecorded import UnrecordedWrites
from tenants.quotas import TenantProfile
from tenants.usage import Usage

#: How long a tenant's quotas are trusted before they are read again (its webhook is read by
#: each delivery, never from here).
PROFILE_TTL = timedelta(seconds=60)
#: A tenant's claim window, per slot of its concurrency: actions claimed and not yet ended.
#: Claims refill half a window at a time, so a backlog costs a claim transaction per
#: `WINDOW_PER_SLOT / 2` runs of each slot. On SQLite every claim holds the one write lock
#: in a burst (mostly waiting for the busy event loop between its statements), and that lock
#: was busy most of a burst's drain: the number of claims bounded throughput (measured window
#: sizes in docs/performance.md). The tenant's slots and the node's still bound what runs:
#: the window only queues.
WINDOW_PER_SLOT = 32
#: The window of nodes that compete for every tenant's actions (no tenant leases): narrow, so
#: that a backlog is shared between them rather than claimed whole by the first to look.
COMPETING_WINDOW_PER_SLOT = 8
#: Claimed actions per tenant, in claim windows, including ended runs not yet recorded.
RECORDING_WINDOWS = 4


@dataclass
class TenantState:
    profile: TenantProfile
    usage_day: date
    usage: Usage
    #: When the profile (quotas) was read; re-read after PROFILE_TTL.
    loaded_at: datetime
    in_flight: dict[int, Claimed] = field(default_factory=dict)
    #: Of `in_flight`, the runs that ended and wait only to be recorded.
    recording: set[int] = field(default_factory=set)
    #: Rules with an action waiting for the rule's previous run to end (overlap queue_one).
    deferred: set[str] = field(default_factory=set)
    #: The tenant's loop, while it runs (set and cleared by the supervisor that owns it).
    loop_task: asyncio.Task[None] | None = None
    #: Changes to the tenant's rules or actions committed in this process so far: a run
    #: claimed ahead checks its claim before it starts if one came after the claim.
    changes: int = 0
    window_per_slot: int = WINDOW_PER_SLOT
    #: kv writes of the tenant's runs that ended here and are not recorded yet.
    unrecorded: UnrecordedWrites = field(default_factory=UnrecordedWrites)
    #: Set to wake the loop from its sleep (a change, or room in the claim window).
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: Something changed (rules, actions, a deferred rule's run ended): what the loop read
    #: ahead is stale and must be read again.
    _is_changed: bool = False
    #: The loop waits for runs to end before it may claim more.
    _is_waiting_for_room: bool = False

    def note_change(self, change: Change) -> None:
        """The tenant's rules or actions changed in this process: a running loop reads again,
        and, unless work was only added, a claim taken ahead checks itself before it runs."""
        if change is Change.CHANGED:
            self.changes += 1
        if self.loop_task is not None:
            self.mark_stale()

    def mark_stale(self) -> None:
        """What the loop read ahead is stale (a deferred rule's run ended): read it again."""
        self._is_changed = True
        self._wake.set()

    def note_room(self) -> None:
        """A run ended: wake a loop waiting for room once half its window is free."""
        if self._is_waiting_for_room and self.has_room_to_refill:
            self._wake.set()

    def take_change(self) -> bool:
        """For the loop: whether something changed since it last asked (and forget it)."""
        changed, self._is_changed = self._is_changed, False
        return changed

    @property
    def is_woken(self) -> bool:
        return self._wake.is_set()

    def clear_wake(self) -> None:
        self._wake.clear()

    async def sleep(self, clock: Clock, until: datetime | None, cap_s: float) -> None:
        """For the loop: sleep until `until` (None: until woken), a wake-up, or the cap."""
        await clock.sleep_until(until, self._wake, cap_s)

    async def wait_for_room(self, clock: Clock, cap_s: float) -> None:
        """For the loop: sleep until runs ending free half the window (or the cap)."""
        self._is_waiting_for_room = True
        try:
            await clock.sleep_until(None, self._wake, cap_s)
        finally:
            self._is_waiting_for_room = False

    @property
    def tenant_id(self) -> str:
        return self.profile.tenant_id

    @property
    def claim_room(self) -> int:
        """How many more actions may be claimed now: a window per slot, queued for the sandbox.

        A run that ended frees its place at once, not when it is recorded: recording waits
        for a batch (`engine.runs.recorder`), and a window that counted those runs held one tenant
        to a window per batch (a lone tenant's burst drained slowly: docs/performance.md).
        Ended runs waiting to be recorded are bounded too, so a slow database slows claiming
        down."""
        unfinished = len(self.in_flight) - len(self.recording)
        claimed_cap = RECORDING_WINDOWS * self._window - len(self.in_flight)
        return max(0, min(self._window - unfinished, claimed_cap))

    @property
    def overtaking_room(self) -> int:
        """How many more may be claimed past a full window by higher-priority actions: half a
        window, within the bound on claimed actions."""
        unfinished = len(self.in_flight) - len(self.recording)
        claimed_cap = RECORDING_WINDOWS * self._window - len(self.in_flight)
        return max(0, min(self._window * 3 // 2 - unfinished, claimed_cap))

    def lowest_waiting_priority(self) -> int | None:
        """The lowest priority among claimed runs that have not ended."""
        waiting = [c for i, c in self.in_flight.items() if i not in self.recording]
        return min((int(c.action.priority) for c in waiting), default=None)

    @property
    def has_room_to_refill(self) -> bool:
        """Half the claim window is free: worth one claim transaction for several actions
        (claiming one action per finished run would cost a transaction per action), while the
        other half still keeps the tenant's slots busy."""
        return self.claim_room >= max(1, self._window // 2)

    @property
    def _window(self) -> int:
        return self.window_per_slot * self.profile.quotas.max_concurrency

    def _going(self) -> Iterator[Claimed]:
        """The runs claimed here that have not ended. A run that ended is over for its rule's
        overlap policy, even before it is recorded: the next run reads its kv writes
        (`unrecorded`), and how long recording takes (the database's business) must not
        decide whether an occurrence is skipped."""
        return (c for i, c in self.in_flight.items() if i not in self.recording)

    def busy_rules(self) -> set[str]:
        """The rules with a run going here (one pass over the runs, for a pass over many
        actions)."""
        return {c.action.rule_id for c in self._going() if c.action.rule_id is not None}

    def busy_since(self, rule_id: str | None) -> datetime | None:
        """When this node claimed the rule's earliest run still going."""
        if rule_id is None:
            return None
        return min(
            (c.claimed_at for c in self._going() if c.action.rule_id == rule_id), default=None
        )

    def forget_finished_deferrals(self) -> None:
        """A rule waits only while its run is going here (it may have ended meanwhile)."""
        self.deferred &= self.busy_rules()

    def rule_run_over(self, rule_id: str | None) -> None:
        """A run of `rule_id` ended or went: an action of the rule waiting for it (deferred)
        may be claimed now, so what was read is read again; otherwise a place may be free."""
        if rule_id in self.deferred:
            self.deferred.discard(rule_id)
            self.mark_stale()
        else:
            self.note_room()

    def is_over_quota(self) -> bool:
        q = self.profile.quotas
        return (
            self.usage.runs >= q.max_runs_per_day or self.usage.cpu_ms >= q.max_cpu_s_per_day * 1000
        )

    def count_run(self, day: date, cpu_ms: int) -> None:
        if day != self.usage_day:
            self.usage_day, self.usage = day, Usage(0, 0)
        self.usage = Usage(self.usage.runs + 1, self.usage.cpu_ms + cpu_ms)

    def is_stale(self, now: datetime) -> bool:
        return now - self.loaded_at > PROFILE_TTL or now.date() != self.usage_day

    @property
    def is_idle(self) -> bool:
        return self.loop_task is None and not self.in_flight
