"""`/v1/notification-routes`: which outcomes of your rules are sent where (docs/notifications.md).

A route is created or deleted, never edited. Whether `target` suits the channel is checked
here with the same URL policy as the tenant webhook (no loopback or private hosts unless the
operator allows them), so a route can never point the engine at an internal service.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from api.deps import EditorDep, EngineDep, SettingsDep, ViewerDep
from api.errors import BadParameter
from api.pagination import Page, PageDep
from api.schemas.notifications import (
    EMAIL_PATTERN,
    RULE_ID_PATTERN,
    NotificationRouteCreate,
    NotificationRoutePublic,
)
from api.settings import Settings
from engine.domain.notifications import NotificationChannel, RouteSpec
from engine.service.row_records import MAX_ID
from tenants.errors import InvalidInput
from tenants.settings import check_webhook_url

router = APIRouter(prefix="/v1/notification-routes", tags=["notifications"])

RouteId = Annotated[int, Path(ge=1, le=MAX_ID, description="The route's id.")]
RuleFilter = Annotated[
    str | None,
    Query(pattern=RULE_ID_PATTERN, description="Only the routes of this rule (not the tenant's)."),
]


@router.get("", response_model=Page[NotificationRoutePublic])
async def list_routes(
    caller: ViewerDep, engine: EngineDep, page: PageDep, rule_id: RuleFilter = None
) -> Any:
    """Your notification routes in creation order."""
    return await engine.list_notification_routes(caller.tenant_id, rule_id, page.cursor, page.limit)


@router.post("", response_model=NotificationRoutePublic, status_code=201)
async def create_route(
    body: NotificationRouteCreate, caller: EditorDep, engine: EngineDep, settings: SettingsDep
) -> Any:
    """Add a route: for every rule, or with `rule_id` for one rule (added to the tenant's)."""
    spec = RouteSpec(
        events=tuple(body.events),
        channel=body.channel,
        target=_checked_target(body.channel, body.target, settings),
        rule_id=body.rule_id,
        digest_minutes=body.digest_minutes,
    )
    return await engine.create_notification_route(caller.tenant_id, spec)


@router.get("/{route_id}", response_model=NotificationRoutePublic)
async def get_route(route_id: RouteId, caller: ViewerDep, engine: EngineDep) -> Any:
    """One notification route."""
    return await engine.get_notification_route(caller.tenant_id, route_id)


@router.delete("/{route_id}", status_code=204)
async def delete_route(route_id: RouteId, caller: EditorDep, engine: EngineDep) -> Response:
    """Delete a route, with its notifications not sent yet."""
    await engine.delete_notification_route(caller.tenant_id, route_id)
    return Response(status_code=204)


def _checked_target(channel: NotificationChannel, target: str, settings: Settings) -> str:
    """`target` when it suits `channel`; else BadParameter naming `target` and the fix."""
    if channel is NotificationChannel.WEBHOOK:
        if target:
            raise BadParameter(
                "the webhook channel takes no target: leave it empty", field="target"
            )
        return target
    if channel is NotificationChannel.EMAIL:
        if not re.fullmatch(EMAIL_PATTERN, target):
            raise BadParameter(f"target: {target[:80]!r} is not an email address", field="target")
        return target
    try:
        return check_webhook_url(target, allow_private=settings.allow_private_webhooks)
    except InvalidInput as exc:
        raise BadParameter(f"target: {exc}", field="target") from exc
