"""The engine's exception root; the API maps each subclass to one HTTP status.

A failing tenant script is never one of these (it is an `Outcome`); these are the caller's
mistakes: a missing object, a stale version, an invalid rule, a quota, a wrong state.
"""

from __future__ import annotations


class EngineError(Exception):
    """The engine could not do what was asked."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or "").strip().splitlines()[0])


class RuleNotFound(EngineError):
    """No such rule for this tenant: check the rule id (GET /v1/rules lists them)."""

    @classmethod
    def of(cls, rule_id: str) -> RuleNotFound:
        """The error for `rule_id`, named in the message (an id of another tenant's rule reads
        as missing, like one that never existed)."""
        return cls(f"no rule {rule_id!r} for this tenant: check the rule id")


class RuleVersionNotFound(EngineError):
    """No such version of this rule: GET /v1/rules/{rule_id}/versions lists the versions kept."""


class ActionNotFound(EngineError):
    """No such action for this tenant: check the action id."""


class RunNotFound(EngineError):
    """No such run for this tenant: check the run id."""


class RuleIdTaken(EngineError):
    """A rule id the client chose is in use; rule ids are one namespace for the installation."""

    def __init__(self, rule_id: str) -> None:
        super().__init__(
            f"rule id {rule_id!r} is taken: rule ids are unique across the installation and stay "
            "with deleted rules; choose another id (prefix your ids with a name of your own)"
        )


class StaleVersion(EngineError):
    """The rule was changed since you read it: fetch it again and reapply your change."""

    def __init__(self, current_version: int, message: str | None = None) -> None:
        self.current_version = current_version
        super().__init__(
            message
            or f"the rule is at version {current_version}, not the one you edited: "
            "fetch it again and reapply your change"
        )


class InvalidRule(EngineError):
    """A field of the rule is not acceptable; `field`, `reason` and `hint` say which and why."""

    def __init__(
        self,
        field: str,
        reason: str,
        *,
        position: int | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.field = field
        self.reason = reason
        self.position = position
        self.line = line
        self.hint = hint
        where = f" (line {line})" if line is not None else ""
        where += f" (at character {position})" if position is not None else ""
        fix = f"; {hint}" if hint else ""
        super().__init__(f"{field}{where}: {reason}{fix}")


class InvalidRuleSchedule(InvalidRule):
    """The rule's schedule (or its time zone) does not parse or never occurs: the same kind of
    problem the preview reports for the same text, so a client handles both alike."""


class QuotaExceeded(EngineError):
    """The tenant's quota does not allow this; ask the operator to raise it."""

    def __init__(self, quota: str, message: str) -> None:
        self.quota = quota
        super().__init__(message)


class CalendarNotFound(EngineError):
    """No such calendar for this tenant: check its name (GET /v1/calendars lists them)."""


class NotificationRouteNotFound(EngineError):
    """No such notification route for this tenant: GET /v1/notification-routes lists them."""


class InvalidState(EngineError):
    """The object is not in a state that allows this operation."""


class CalendarInUse(InvalidState):
    """Rules still use this calendar: remove it from their `calendars` first."""

    def __init__(self, name: str, rules: list[tuple[str, str]]) -> None:
        self.rules = rules
        named = ", ".join(f"{rule_id} ({rule_name!r})" for rule_id, rule_name in rules)
        super().__init__(
            f"calendar {name!r} is used by {len(rules)} rule(s): {named}; remove it from their "
            "`calendars` (PATCH /v1/rules/{id}) before deleting it"
        )


class TenantNotFound(EngineError):
    """No such tenant: check the tenant id."""


class NodeNameInUse(EngineError):
    """Another live node holds this node name: give this node another name
    (CADENZA_NODE_NAME), or stop the other one first."""
