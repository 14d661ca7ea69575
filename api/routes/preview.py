"""`POST /v1/preview`: the same code as `cadenza preview`, with the caller's tenant's limits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncEngine

from api.deps import DbDep, SettingsDep, ViewerDep
from api.schemas.preview import PreviewCreate, PreviewPublic
from engine.recurrence import ScheduleLimits, parse_schedule, preview, preview_json
from engine.recurrence.calendars import Calendar
from engine.service.calendar_reads import resolve
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
    body: PreviewCreate, caller: ViewerDep, settings: SettingsDep, db: DbDep
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
    ).with_calendars(await _calendars(db, caller.tenant_id, body.calendars))
    return preview_json(preview(schedule, after, body.count))


async def _calendars(db: AsyncEngine, tenant_id: str, names: list[str]) -> tuple[Calendar, ...]:
    """The calendars the preview names (read only when it names some)."""
    if not names:
        return ()
    async with db.connect() as conn:
        return await resolve(conn, tenant_id, names)
