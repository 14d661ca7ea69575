"""`CapabilityDesk`: this node's capabilities, ready to perform.

Built once when the node starts, so an entry point that cannot be loaded stops the start with
a message naming it. The per-tenant minute quota is not counted here but in the database,
shared by every node (`engine.store.call_minutes`).
"""

from __future__ import annotations

from engine.capabilities.performers import performer
from engine.capabilities.requests import Perform
from engine.capabilities.specs import CapabilityPolicy, CapabilitySpec


class CapabilityDesk:
    """The registered capabilities of this node, each with its performer."""

    def __init__(self, policy: CapabilityPolicy) -> None:
        self.policy = policy
        self._performers = {s.name: performer(s, policy.signing_key) for s in policy.specs}

    def spec(self, name: str) -> CapabilitySpec | None:
        return self.policy.by_name.get(name)

    def performer(self, name: str) -> Perform:
        return self._performers[name]
