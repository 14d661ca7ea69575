"""`ctx.schedule(run_at, params, key=None)`: a run plans a one-off action of its own tenant.

The follow-up is of the same rule (or, for a one-off carrying its own script, the same script)
with the given params, due at `run_at`. It is buffered like the run's kv writes and committed
with them, only if the run is recorded with effect under its claim (`engine.runs.commit`): a
run repeated after a crash or a failure plans it once. Its key (given, or
`followup:<occurrence id>/<index>`) is the action's idempotency key: a key already used by
the tenant keeps the action it names, so "remind again in 24 h" with one key per cart never
stacks reminders. A run plans at most MAX_PER_RUN, at most MAX_AHEAD ahead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

MAX_PER_RUN = 10
MAX_AHEAD = timedelta(days=366)
MAX_KEY_CHARS = 200


@dataclass(frozen=True)
class FollowUp:
    """One action a run planned."""

    run_at: datetime
    params: dict[str, Any] | None
    key: str


class FollowUps:
    """The follow-ups of one run, checked as the script asks for them."""

    def __init__(self, occurrence_id: str, now: datetime) -> None:
        self._occurrence_id, self._now = occurrence_id, now
        self.planned: list[FollowUp] = []

    def add(self, run_at: str, params: Any, key: str | None) -> str:
        """Plan one; its key. ValueError (the script's HostError) for a bad request."""
        if len(self.planned) >= MAX_PER_RUN:
            raise ValueError(f"a run may schedule at most {MAX_PER_RUN} follow-ups")
        if params is not None and not isinstance(params, dict):
            raise ValueError("schedule: params must be a dict or None")
        at = _instant(run_at)
        if at > self._now + MAX_AHEAD:
            raise ValueError(f"schedule: {run_at} is more than {MAX_AHEAD.days} days ahead")
        key = key if key is not None else f"followup:{self._occurrence_id}/{len(self.planned)}"
        if not 0 < len(key) <= MAX_KEY_CHARS:
            raise ValueError(f"schedule: a key must be 1..{MAX_KEY_CHARS} characters")
        self.planned.append(FollowUp(at, params, key))
        return key


def _instant(text: str) -> datetime:
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        at = None
    if at is None or at.tzinfo is None:
        raise ValueError(
            f"schedule: run_at {text[:60]!r} must be ISO 8601 with an offset, e.g. "
            "2026-11-27T09:00:00+01:00"
        )
    return at
