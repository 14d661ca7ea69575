"""`ctx.call(name, args)`: a capability of the embedding product, called by the engine for a run.

In order, each step refusing with a HostError before anything leaves the engine: the run's
call budget; the tenant's grant (an unknown name and an ungranted one get the same answer, so
a tenant cannot probe what others were granted); the arguments against the capability's JSON
Schema (the message names the failing path); the tenant's calls in this minute, counted in the
database over every engine node (`engine.store.call_minutes`). Then the
call is performed (`engine.capabilities.performers`) within what is left of the run's time, and
an answer larger than the capability's cap is refused. Every call is recorded on the run as a
`CallRecord` (kind `capability`, the name as its host): never the arguments or the answer.
"""

from __future__ import annotations

import json
import time
from enum import StrEnum
from typing import Any

from jsonschema.exceptions import best_match
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.capabilities.desk import CapabilityDesk
from engine.capabilities.requests import Answered, CapabilityFailed, CapabilityRequest
from engine.capabilities.specs import CapabilitySpec
from engine.clock import Clock
from engine.domain.records import CallRecord
from engine.ops import metrics
from engine.runs.deadline import RunDeadline
from engine.store import call_minutes
from sandbox import ScriptContext
from tenants import capability_grants


class CallOutcome(StrEnum):
    """How a capability call ended (the metric's `outcome` label)."""

    #: The capability answered.
    OK = "ok"
    #: It was performed and failed (an error status, no answer in time, an answer too big).
    FAILED = "failed"
    #: It never left: not granted, arguments off the schema, the tenant's minute full.
    REFUSED = "refused"
    #: The run had made all the calls it may.
    OVER_RUN_QUOTA = "over_run_quota"


class Refused(ValueError):
    """A call stopped before it left: `reason` is what the run's record keeps of it."""

    def __init__(self, message: str, reason: str) -> None:
        self.reason = reason
        super().__init__(message)


class CapabilityCalls:
    """The capability calls of one run of one tenant."""

    def __init__(
        self,
        db: AsyncEngine,
        desk: CapabilityDesk,
        context: ScriptContext,
        deadline: RunDeadline,
        clock: Clock,
    ) -> None:
        self._db, self._desk, self._context, self._deadline = db, desk, context, deadline
        self._clock = clock
        self._granted: frozenset[str] | None = None
        self.records: list[CallRecord] = []

    async def call(self, name: str, args: Any) -> Any:
        """The capability's answer; ValueError (the script's HostError) when refused or failed."""
        limit = self._desk.policy.max_calls_per_run
        if len(self.records) >= limit:
            metrics.CAPABILITY_CALLS.labels("-", CallOutcome.OVER_RUN_QUOTA).inc()
            raise ValueError(f"made more than {limit} capability calls in one run")
        started, answered = time.monotonic(), Answered(None)
        sent, outcome, error = _size(args), CallOutcome.OK, None
        try:
            request = await self._checked(name, args)
            answered = await self._desk.performer(name)(request)
            return answered.value
        except Refused as exc:
            outcome, error = CallOutcome.REFUSED, exc.reason
            raise
        except CapabilityFailed as exc:
            outcome, error = CallOutcome.FAILED, str(exc)
            answered = Answered(None, exc.status)
            raise ValueError(f"capability {name!r} failed: {exc}") from None
        finally:
            metrics.CAPABILITY_CALLS.labels(self._metric_name(name), outcome).inc()
            self._record(name, started, sent, answered, error)

    async def _checked(self, name: str, args: Any) -> CapabilityRequest:
        spec = await self._spec(name)
        _validate(spec, args)
        await self._count()
        timeout_s = self._deadline.left_s()
        if timeout_s <= 0:
            raise Refused("no time is left in this run for a capability call", "no time left")
        ctx = self._context
        return CapabilityRequest(
            ctx.tenant_id, name, args, ctx.occurrence_id, ctx.attempt, len(self.records), timeout_s
        )

    async def _spec(self, name: str) -> CapabilitySpec:
        if self._granted is None:
            async with self._db.connect() as conn:
                self._granted = await capability_grants.granted_names(conn, self._context.tenant_id)
        spec = self._desk.spec(name)
        if spec is None or name not in self._granted:
            raise Refused(
                f"capability {name[:130]!r} is not granted to this tenant: GET /v1/capabilities "
                "lists the ones its scripts may call",
                "not granted",
            )
        return spec

    async def _count(self) -> None:
        """Count the call in the tenant's minute, over every node; Refused when it is full."""
        per_minute, tenant_id = self._desk.policy.max_calls_per_minute, self._context.tenant_id
        async with self._db.begin() as conn:
            taken = await call_minutes.take(conn, tenant_id, self._clock.now(), per_minute)
        if not taken:
            raise Refused(
                f"this tenant made {per_minute} capability calls in this minute, its quota "
                "over all engine nodes: try again in the next minute",
                "over the tenant's quota per minute",
            )

    def _metric_name(self, name: str) -> str:
        """The name as a metric label: only registered names (a script chooses the rest)."""
        return name if self._desk.spec(name) is not None else "-"

    def _record(
        self, name: str, started: float, sent: int, answered: Answered, error: str | None
    ) -> None:
        duration_ms = round((time.monotonic() - started) * 1000, 3)
        received = 0 if error else _size(answered.value)
        status = answered.status
        self.records.append(
            CallRecord("capability", "CALL", name[:130], status, duration_ms, sent, received, error)
        )


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def _validate(spec: CapabilitySpec, args: Any) -> None:
    """Refuse `args` unless they match the spec's schema, naming the first failing path."""
    error = best_match(spec.validator.iter_errors(args))
    if error is not None:
        raise Refused(
            f"capability {spec.name!r}: the arguments do not match its schema at "
            f"{error.json_path}: {error.message[:300]}",
            f"arguments do not match the schema at {error.json_path[:200]}",
        )
