"""What one capability call is, as its implementation receives it, and how it can fail."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


class CapabilityFailed(Exception):
    """The capability could not perform the call; the script receives this message as a
    HostError. An in-process implementation raises it to refuse a call with a reason."""

    def __init__(self, message: str, status: int | None = None) -> None:
        #: The endpoint's HTTP status, when it answered one.
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class CapabilityRequest:
    """One call of a capability by a tenant's script, after its arguments matched the schema.

    `idempotency_key` is `<occurrence_id>/call/<call_index>`: a retried occurrence that makes
    its calls in the same order presents the same keys, so the implementation can perform each
    effect once although a call itself may arrive more than once.
    """

    tenant_id: str
    capability: str
    args: Any
    occurrence_id: str
    attempt: int
    #: The call's place among the run's capability calls, from 0.
    call_index: int
    #: What is left of the run's time: the implementation must answer within it.
    timeout_s: float

    @property
    def idempotency_key(self) -> str:
        return f"{self.occurrence_id}/call/{self.call_index}"

    def to_json(self) -> dict[str, Any]:
        """The body POSTed to an HTTP endpoint."""
        return {
            "tenant_id": self.tenant_id,
            "capability": self.capability,
            "args": self.args,
            "occurrence_id": self.occurrence_id,
            "attempt": self.attempt,
            "call_index": self.call_index,
        }


@dataclass(frozen=True)
class Answered:
    """What a capability gave back: its JSON value, and the HTTP status it came with."""

    value: Any
    status: int | None = None


#: An in-process implementation: an async callable taking the request, returning a JSON value.
Implementation = Callable[[CapabilityRequest], Awaitable[Any]]
#: How the engine performs a call of one capability.
Perform = Callable[[CapabilityRequest], Awaitable[Answered]]
