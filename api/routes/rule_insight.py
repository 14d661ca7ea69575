"""Why a rule ran or did not (`timeline`), how well it keeps time (`stats`), and what a change
would do before it is saved (`preview`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import EngineDep, ViewerDep
from api.errors import BadParameter
from api.routes.rules import RuleId
from api.schemas.common import Instant
from api.schemas.rules import RuleUpdate, zoned
from api.schemas.timeline import ChangePreview, RuleStats, Timeline

router = APIRouter(prefix="/v1/rules/{rule_id}", tags=["rules"])

MAX_WINDOW = timedelta(days=366)
DEFAULT_WINDOW = timedelta(days=7)

From = Annotated[
    Instant | None, Query(alias="from", description="Window start (default: `to` - 7 days).")
]
To = Annotated[Instant | None, Query(alias="to", description="Window end (default: now + 1 day).")]


def window(start: datetime | None, end: datetime | None) -> tuple[datetime, datetime]:
    """The [start, end) asked for, defaulted, and at most MAX_WINDOW long."""
    try:
        end = end or datetime.now(UTC) + timedelta(days=1)
        start = start or end - DEFAULT_WINDOW
    except OverflowError as exc:
        raise BadParameter("to is too close to year 1 for a default window", field="to") from exc
    if not timedelta(0) < end - start <= MAX_WINDOW:
        raise BadParameter(
            f"from must be before to, at most {MAX_WINDOW.days} days apart", field="from"
        )
    return start, end


@router.get("/timeline", response_model=Timeline)
async def rule_timeline(
    rule_id: RuleId, caller: ViewerDep, engine: EngineDep, start: From = None, end: To = None
) -> dict[str, Any]:
    """Every planned occurrence in the window with its fate, linked to its runs."""
    start, end = window(start, end)
    entries = await engine.timeline(caller.tenant_id, rule_id, start, end)
    return {"rule_id": rule_id, "start": start, "end": end, "items": entries}


@router.get("/stats", response_model=RuleStats)
async def rule_stats(rule_id: RuleId, caller: ViewerDep, engine: EngineDep) -> dict[str, Any]:
    """Configured vs achieved cadence, lateness p50/p95, headroom against limits, skips."""
    return {"rule_id": rule_id, "stats": await engine.rule_stats(caller.tenant_id, rule_id)}


@router.post("/preview", response_model=ChangePreview)
async def preview_change(
    rule_id: RuleId,
    body: RuleUpdate,
    caller: ViewerDep,
    engine: EngineDep,
    count: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Any:
    """The next occurrences before and after the proposed change; nothing is saved."""
    changes = zoned(body.model_dump(exclude_unset=True), caller.tenant.default_timezone)
    return await engine.preview_change(caller.tenant_id, rule_id, changes, count=count)
