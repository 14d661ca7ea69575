"""What every engine operation needs: the database, the sandbox, the configuration, the clock."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from engine.capabilities.desk import CapabilityDesk
from engine.clock import Clock
from engine.config import EngineConfig
from engine.domain.changes import Wake
from engine.errors import TenantNotFound
from engine.ops import metrics
from engine.recurrence import ScheduleLimits
from engine.write_turns import WriteTurns
from sandbox import Sandbox
from tenants.errors import NotFound
from tenants.quotas import TenantProfile, load_profile
from tenants.secret_box import SecretBox


@dataclass
class Deps:
    db: AsyncEngine
    sandbox: Sandbox
    config: EngineConfig
    clock: Clock
    #: Called with a tenant id and what a write did (`Change`) after every committed write, so
    #: its loop re-reads at once.
    wake: Wake
    #: Opens stored secrets (webhook signing); None: this node cannot sign deliveries.
    secrets: SecretBox | None = None
    _write_turns: WriteTurns | None = field(init=False, default=None)
    #: The capabilities this node performs for scripts, loaded from the configuration.
    capabilities: CapabilityDesk = field(init=False)

    def __post_init__(self) -> None:
        self.capabilities = CapabilityDesk(self.config.capabilities)
        if self.db.dialect.name == "sqlite":
            self._write_turns = WriteTurns()

    @contextlib.asynccontextmanager
    async def write(self, urgent: bool = False) -> AsyncIterator[AsyncConnection]:
        """A write transaction. On SQLite, one at a time in this process: SQLite has a single
        writer, and a connection waiting for it backs off in sleeps of up to 100 ms, which
        would make runs late; an `urgent` one (a claim of due actions) goes before those
        waiting (`engine.write_turns`). PostgreSQL writers run concurrently. What is counted
        inside (`engine.ops.metrics.count_skips`, `count_runs`) is applied once it has
        committed."""
        async with self._one_writer(urgent):
            with metrics.counting() as apply_counts:
                async with self.db.begin() as conn:
                    yield conn
                apply_counts()  # committed: the counters now match the rows

    def _one_writer(self, urgent: bool) -> contextlib.AbstractAsyncContextManager[object]:
        if self._write_turns is None:
            return contextlib.nullcontext()
        return self._write_turns.turn(urgent)

    def schedule_limits(self, profile: TenantProfile) -> ScheduleLimits:
        return ScheduleLimits(
            horizon_years=self.config.horizon_years,
            min_interval_s=profile.quotas.min_interval_s,
            allow_secondly=profile.quotas.allow_secondly,
        )

    async def profile(self, tenant_id: str) -> TenantProfile:
        async with self.db.connect() as conn:
            try:
                return await load_profile(conn, tenant_id)
            except NotFound as exc:
                raise TenantNotFound(f"no tenant {tenant_id!r}") from exc
