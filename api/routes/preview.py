"""`POST /v1/preview`: the same code as `cadenza preview`, with the caller's tenant's limits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from api.deps import SettingsDep, ViewerDep
from api.schemas.preview import PreviewCreate, PreviewPublic
from engine.recurrence import ScheduleLimits, parse_schedule, preview, preview_json
from tenants.registry import Tenant

router = APIRouter(prefix="/v1", tags=["preview"])


def schedule_limits(tenant: Tenant, horizon_years: int) -> ScheduleLimits:
    """The guards a tenant's schedules are parsed with: its quotas, the operator's horizon."""
    return ScheduleLimits(
        horizon_years=horizon_years,
        min_interval_s=int(tenant.quotas["min_interval_s"]),
        allow_secondly=bool(tenant.quotas["allow_secondly"]),
    )


@router.post("/preview", response_model=PreviewPublic)
async def preview_schedule(
    body: PreviewCreate, caller: ViewerDep, settings: SettingsDep
) -> dict[str, Any]:
    """Text, next occurrences, end and warnings of a schedule; nothing is saved."""
    after = body.after or datetime.now(UTC).replace(second=0, microsecond=0)
    schedule = parse_schedule(
        body.schedule,
        body.timezone or caller.tenant.default_timezone,
        anchor=after,
        dst_gap=body.dst_gap,
        dst_repeat=body.dst_repeat,
        limits=schedule_limits(caller.tenant, settings.horizon_years),
    )
    return preview_json(preview(schedule, after, body.count))
