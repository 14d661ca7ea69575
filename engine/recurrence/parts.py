"""What a resolved schedule is made of, as read by its description (`describe`), its warnings
(`notices`) and its end (`last`): they take these parts, not `Recurrence`, which calls them
while it is being built (so they do not import it back)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from engine.recurrence.wall_rule import WallRule
from engine.recurrence.zones import WallMapping


class RecurrenceParts(Protocol):
    @property
    def rules(self) -> tuple[WallRule, ...]: ...
    @property
    def rdates(self) -> tuple[datetime, ...]: ...
    @property
    def exdates(self) -> frozenset[datetime]: ...
    @property
    def mapping(self) -> WallMapping: ...
    @property
    def zone_name(self) -> str: ...
    @property
    def dead(self) -> tuple[str, ...]: ...
    @property
    def has_dtstart(self) -> bool: ...
    @property
    def ends(self) -> datetime | None: ...
