"""`CapabilityDesk`: this node's capabilities, ready to perform, and each tenant's minute.

Built once when the node starts, so an entry point that cannot be loaded stops the start with
a message naming it. The per-tenant quota is a sliding minute counted on this node: a tenant's
runs on one node share it, runs on several nodes have one each (decisions: no database write per
call).
"""

from __future__ import annotations

import time
from collections import deque

from engine.capabilities.performers import performer
from engine.capabilities.requests import Perform
from engine.capabilities.specs import CapabilityPolicy, CapabilitySpec

_MINUTE_S = 60.0


class CapabilityDesk:
    """The registered capabilities of this node and the calls tenants made in the last minute."""

    def __init__(self, policy: CapabilityPolicy) -> None:
        self.policy = policy
        self._performers = {s.name: performer(s, policy.signing_key) for s in policy.specs}
        self._recent: dict[str, deque[float]] = {}

    def spec(self, name: str) -> CapabilitySpec | None:
        return self.policy.by_name.get(name)

    def performer(self, name: str) -> Perform:
        return self._performers[name]

    def take(self, tenant_id: str) -> bool:
        """Count one call of the tenant now, if its minute has room; whether it had."""
        now = time.monotonic()
        recent = self._recent.setdefault(tenant_id, deque())
        while recent and recent[0] <= now - _MINUTE_S:
            recent.popleft()
        if len(recent) >= self.policy.max_calls_per_minute:
            return False
        recent.append(now)
        return True
