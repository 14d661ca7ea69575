"""Capabilities: named operations the embedding product lends to its tenants' scripts.

The operator registers each (`specs`): a JSON Schema for its arguments, a cap on its answer,
and an implementation, either an HTTP endpoint of the host product (`endpoints`) or a Python
entry point for a product that embeds Cadenza in-process (`entry_points`). A tenant may call
only those it was granted (`tenants.capability_grants`); a run calls them through
`engine.runs.capability_calls`, which checks, counts and records every call.
"""

from engine.capabilities.requests import CapabilityFailed, CapabilityRequest

__all__ = ["CapabilityFailed", "CapabilityRequest"]
