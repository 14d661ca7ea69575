"""A rule's history (`/v1/rules/{rule_id}/versions`, `/rollback`): versions, diffs, rollback."""

from __future__ import annotations

from cadenza_client.call import Call, Route, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.history import RuleDiff, RuleVersion
from cadenza_client.models.rules import Rule
from cadenza_client.resources.rules import RuleRef, if_match, rule_id


class RuleHistory(Resource[S]):
    """Every saved version of a rule, what changed between two, and going back to one."""

    @operation("GET", "/v1/rules/{rule_id}/versions")
    def page(
        route: Route, rule: RuleRef, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[RuleVersion]]:
        """One page of the rule's versions, oldest first."""
        query = {"limit": limit, "cursor": cursor}
        path = {"rule_id": rule_id(rule)}
        return route.call(reading(Page[RuleVersion]), path=path, query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/rules/{rule_id}/versions/{version}")
    def get(route: Route, rule: RuleRef, version: int) -> Call[RuleVersion]:
        """Version `version` of the rule (`NotFound` if it was never saved)."""
        path = {"rule_id": rule_id(rule), "version": str(version)}
        return route.call(reading(RuleVersion), path=path)

    @operation("GET", "/v1/rules/{rule_id}/versions/{version}/diff")
    def diff(
        route: Route, rule: RuleRef, version: int, *, against: int | None = None
    ) -> Call[RuleDiff]:
        """The fields that differ between `against` (default: the version before) and `version`."""
        path = {"rule_id": rule_id(rule), "version": str(version)}
        return route.call(reading(RuleDiff), path=path, query={"against": against})

    @operation("POST", "/v1/rules/{rule_id}/rollback")
    def rollback(
        route: Route, rule: RuleRef, to_version: int, *, version: int | None = None
    ) -> Call[Rule]:
        """Make the rule what it was at `to_version` again, as a new version. Like `update`, a
        `Rule` (or `version=`) is sent as If-Match: `StaleVersion` if edited since."""
        return route.call(
            reading(Rule),
            path={"rule_id": rule_id(rule)},
            body={"version": to_version},
            headers=if_match(rule, version),
        )
