"""`/v1/notification-routes`: which outcomes of the tenant's rules are sent where."""

from __future__ import annotations

from collections.abc import Sequence

from cadenza_client.call import Call, Route, given, no_content, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.enums import NotificationChannel, NotificationEvent
from cadenza_client.models.notifications import NotificationRoute
from cadenza_client.resources.rules import RuleRef, rule_id

RouteRef = NotificationRoute | int


def _id(ref: RouteRef) -> int:
    return ref if isinstance(ref, int) else ref.id


def _rule(rule: RuleRef | None) -> str | None:
    return None if rule is None else rule_id(rule)


class NotificationRoutes(Resource[S]):
    """Routes are created and deleted, never edited; a rule's routes add to the tenant's."""

    @operation("GET", "/v1/notification-routes")
    def page(
        route: Route,
        *,
        rule: RuleRef | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[NotificationRoute]]:
        """One page of routes in creation order (with `rule`: that rule's own)."""
        query = {"rule_id": _rule(rule), "limit": limit, "cursor": cursor}
        return route.call(reading(Page[NotificationRoute]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/notification-routes/{route_id}")
    def get(route: Route, notification_route: RouteRef) -> Call[NotificationRoute]:
        """One route."""
        path = {"route_id": _id(notification_route)}
        return route.call(reading(NotificationRoute), path=path)

    @operation("POST", "/v1/notification-routes")
    def create(
        route: Route,
        events: Sequence[NotificationEvent],
        channel: NotificationChannel,
        *,
        target: str | None = None,
        rule: RuleRef | None = None,
        digest_minutes: int | None = None,
    ) -> Call[NotificationRoute]:
        """A new route for every rule, or for `rule` only; `target` is the address (email) or
        the URL (slack), none for the webhook."""
        body = given(
            events=list(events),
            channel=channel,
            target=target,
            rule_id=_rule(rule),
            digest_minutes=digest_minutes,
        )
        return route.call(reading(NotificationRoute), body=body)

    @operation("DELETE", "/v1/notification-routes/{route_id}")
    def delete(route: Route, notification_route: RouteRef) -> Call[None]:
        """Delete a route."""
        path = {"route_id": _id(notification_route)}
        return route.call(no_content, path=path)
