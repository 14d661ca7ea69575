"""`/v1/calendars`: named per-tenant calendars of dates rules skip (docs/calendars.md).

PUT creates or replaces a calendar (201 when new, else 200) and re-plans every rule that uses
it; DELETE refuses (409) while a rule names it, listing those rules.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Response

from api.deps import EditorDep, EngineDep, ViewerDep
from api.pagination import Page, PageDep
from api.schemas.calendars import CALENDAR_NAME_PATTERN, CalendarPublic, CalendarPut
from engine.service.calendar_writes import CalendarInput

router = APIRouter(prefix="/v1/calendars", tags=["calendars"])

Name = Annotated[
    str,
    Path(max_length=100, pattern=CALENDAR_NAME_PATTERN, description="The calendar's name."),
]


@router.get("", response_model=Page[CalendarPublic])
async def list_calendars(caller: ViewerDep, engine: EngineDep, page: PageDep) -> Any:
    """Your calendars in name order, each with the rules that use it."""
    return await engine.list_calendars(caller.tenant_id, page.cursor, page.limit)


@router.get("/{name}", response_model=CalendarPublic)
async def get_calendar(name: Name, caller: ViewerDep, engine: EngineDep) -> Any:
    """One calendar and the rules that use it."""
    return await engine.get_calendar(caller.tenant_id, name)


@router.put("/{name}", response_model=CalendarPublic, responses={201: {"model": CalendarPublic}})
async def put_calendar(
    name: Name, body: CalendarPut, caller: EditorDep, engine: EngineDep, response: Response
) -> Any:
    """Create or replace a calendar; rules that use it are re-planned with its new dates (an
    edit that would leave a rule no occurrence is refused, naming the rule)."""
    given = CalendarInput(name, body.description, body.excluded, body.included)
    calendar, is_new = await engine.put_calendar(caller.tenant_id, given)
    response.status_code = 201 if is_new else 200
    return calendar


@router.delete("/{name}", status_code=204)
async def delete_calendar(name: Name, caller: EditorDep, engine: EngineDep) -> Response:
    """Delete a calendar no rule uses (409 names the rules that still do)."""
    await engine.delete_calendar(caller.tenant_id, name)
    return Response(status_code=204)
