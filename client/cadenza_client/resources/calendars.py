"""`/v1/calendars`: the tenant's named calendars of dates its rules skip."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from cadenza_client.call import Call, Route, given, no_content, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.calendars import Calendar

CalendarRef = Calendar | str


def _name(ref: CalendarRef) -> str:
    return ref if isinstance(ref, str) else ref.name


class Calendars(Resource[S]):
    """Named calendars; a rule names them in `calendars` and skips the dates they exclude."""

    @operation("GET", "/v1/calendars")
    def page(
        route: Route, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[Calendar]]:
        """One page of calendars in name order, each with the rules that use it."""
        query = {"limit": limit, "cursor": cursor}
        return route.call(reading(Page[Calendar]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/calendars/{name}")
    def get(route: Route, calendar: CalendarRef) -> Call[Calendar]:
        """One calendar and the rules that use it."""
        return route.call(reading(Calendar), path={"name": _name(calendar)})

    @operation("PUT", "/v1/calendars/{name}")
    def put(
        route: Route,
        name: str,
        *,
        excluded: Sequence[date] = (),
        included: Sequence[date] = (),
        description: str | None = None,
    ) -> Call[Calendar]:
        """Create or replace calendar `name`; the rules that use it are re-planned."""
        body = given(
            excluded=[d.isoformat() for d in excluded],
            included=[d.isoformat() for d in included],
            description=description,
        )
        return route.call(
            reading(Calendar), path={"name": name}, body=body, is_idempotent=True
        )

    @operation("DELETE", "/v1/calendars/{name}")
    def delete(route: Route, calendar: CalendarRef) -> Call[None]:
        """Delete a calendar no rule uses (`InvalidState` names the rules that still do)."""
        return route.call(no_content, path={"name": _name(calendar)})
