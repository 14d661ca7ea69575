"""A tenant's in-memory state as a node keeps it, with plain quotas, for tests of the loop's
decisions without a database."""

from __future__ import annotations

from datetime import datetime

from engine.loop.tenant_state import TenantState
from tenants.quotas import Quotas, TenantProfile
from tenants.usage import Usage


def tenant_state(now: datetime, max_concurrency: int = 2, tenant_id: str = "t1") -> TenantState:
    quotas = Quotas(
        max_rules=10,
        max_concurrency=max_concurrency,
        max_timeout_ms=5000,
        max_memory_mb=128,
        min_interval_s=1,
        allow_secondly=False,
        max_runs_per_day=1000,
        max_cpu_s_per_day=1000,
    )
    profile = TenantProfile(tenant_id, True, quotas)
    return TenantState(profile, now.date(), Usage(0, 0), loaded_at=now)
