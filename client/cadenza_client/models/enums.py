"""The closed vocabularies of the API; each value is exactly the string the server sends.

A test compares every one with the server's OpenAPI document, so a value added on the server
fails the client's tests before a client meets it.
"""

from __future__ import annotations

from enum import StrEnum


class Runtime(StrEnum):
    """How a script executes."""

    PYTHON = "python"
    """RestrictedPython in an isolated process."""
    MICROPYTHON = "micropython"
    """MicroPython compiled to WASI, in wasmtime."""
    WASM = "wasm"
    """A WebAssembly module the tenant supplies (WAT text or binary)."""


class MisfirePolicy(StrEnum):
    """What happens to occurrences missed while the engine was down or behind."""

    RUN_ALL = "run_all"
    """Run every missed occurrence."""
    RUN_LATEST = "run_latest"
    """Run only the most recent missed occurrence."""
    SKIP = "skip"
    """Run none of them."""


class OverlapPolicy(StrEnum):
    """What happens when an occurrence comes due while the rule's last run is still going."""

    SKIP = "skip"
    """Skip the new occurrence."""
    ALLOW = "allow"
    """Run both at once."""
    QUEUE_ONE = "queue_one"
    """Run the new one after the current one; at most one waits."""


class DstGap(StrEnum):
    """A wall time a DST gap removes."""

    SHIFT = "shift"
    """Run at the same offset as before the gap (02:30 becomes 03:30)."""
    SKIP = "skip"
    """Do not run that day."""


class DstRepeat(StrEnum):
    """A wall time a DST fold repeats."""

    FIRST = "first"
    """Run once, at the first of the two instants."""
    BOTH = "both"
    """Run at both instants."""


class ActionStatus(StrEnum):
    """Where an action is in its life."""

    PENDING = "pending"
    """Waiting for its due time."""
    RUNNING = "running"
    """Claimed by an engine node."""
    SUCCEEDED = "succeeded"
    """Its run ended ok."""
    FAILED = "failed"
    """Every attempt failed."""
    SKIPPED = "skipped"
    """Not run by policy (misfire, overlap, paused, quota)."""
    EXPIRED = "expired"
    """Past its grace window before it could run."""
    CANCELLED = "cancelled"
    """Withdrawn: by a user, or because its rule changed or was deleted."""


class Outcome(StrEnum):
    """How one run ended."""

    OK = "ok"
    """The script returned."""
    ERROR = "error"
    """The script raised or did not compile."""
    TIMEOUT = "timeout"
    """It ran past its time limit."""
    MEMORY = "memory"
    """It used more memory than its limit."""
    OUTPUT_LIMIT = "output_limit"
    """It printed or emitted more than the cap."""
    KILLED = "killed"
    """It was stopped from outside (shutdown, cancel)."""
    CRASHED = "crashed"
    """Its worker process died."""
    REJECTED = "rejected"
    """The sandbox refused the script before running it."""


class Role(StrEnum):
    """What an API key may do; each role may do everything of the ones below it."""

    ADMIN = "admin"
    """Also manage the tenant's keys and webhook."""
    EDITOR = "editor"
    """Also create and change rules, actions and data."""
    VIEWER = "viewer"
    """Read everything of its tenant and preview schedules."""


class TenantStatus(StrEnum):
    """Whether a tenant's rules run."""

    ACTIVE = "active"
    """Its rules run."""
    SUSPENDED = "suspended"
    """Its rules stop and its keys are read-only, until the operator resumes it."""


class RuleState(StrEnum):
    """Whether a rule plans runs (a filter of rule lists and bulk operations)."""

    ACTIVE = "active"
    """Enabled."""
    PAUSED = "paused"
    """Disabled: its occurrences are recorded as skipped."""


class BulkOperation(StrEnum):
    """What a bulk call does to each rule its filter selects."""

    PAUSE = "pause"
    """Pause the selected rules that are active."""
    RESUME = "resume"
    """Resume the selected rules that are paused."""
    DELETE = "delete"
    """Delete every selected rule."""


class NotificationEvent(StrEnum):
    """The outcomes a notification route can send."""

    FAILED = "failed"
    """The first failure of a failing streak (later failures of the streak are not sent)."""
    RECOVERED = "recovered"
    """The first success after a failure that was sent."""
    SKIPPED = "skipped"
    """An occurrence skipped by the overlap or misfire policy."""
    EXPIRED = "expired"
    """A one-off that expired before it could run."""


class NotificationDeliveryStatus(StrEnum):
    """How the last attempt at a route's newest attempted notification ended."""

    PENDING = "pending"
    """It failed and will be tried again."""
    DELIVERED = "delivered"
    FAILED = "failed"
    """Out of attempts, or refused for good (the error says why)."""


class NotificationChannel(StrEnum):
    """Where a notification route sends."""

    WEBHOOK = "webhook"
    """The tenant webhook."""
    EMAIL = "email"
    """An email address, through the operator's SMTP server."""
    SLACK = "slack"
    """A Slack-compatible incoming-webhook URL."""
