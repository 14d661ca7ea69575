"""This process's share of the engine: the loops `EngineService.start` runs."""

from __future__ import annotations

from engine.deps import Deps


class Node:
    """Placeholder until the loop lands: accepts wake-ups, runs nothing."""

    def __init__(self, deps: Deps) -> None:
        self._deps = deps

    def wake(self, tenant_id: str) -> None:
        """A tenant's rules or actions changed."""

    async def start(self) -> None:
        """Start the loops."""

    async def stop(self) -> None:
        """Stop the loops."""
