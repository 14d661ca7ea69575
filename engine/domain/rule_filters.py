"""Which rules a listing or a bulk operation means: one record, so both select the same set.

Every criterion given must hold (AND); one not given selects everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from engine.domain.labels import LabelRequirement


class RuleState(StrEnum):
    """Whether a rule plans runs."""

    ACTIVE = "active"
    """Enabled: it plans its next occurrence."""
    PAUSED = "paused"
    """Disabled: its occurrences are recorded as skipped (reason paused)."""


@dataclass(frozen=True)
class RuleFilter:
    """A selection of one tenant's rules."""

    labels: tuple[LabelRequirement, ...] = ()
    state: RuleState | None = None
    runtime: str | None = None
    #: The outcome of the rule's latest run (`runs.outcome`); a rule never run has none.
    last_outcome: str | None = None
    #: Text in the name or the description, any case.
    search: str | None = None


@dataclass(frozen=True)
class RunFilter:
    """A selection of one tenant's runs."""

    rule_id: str | None = None
    outcome: str | None = None
    #: Started at or after.
    since: datetime | None = None
    #: Runs of the rules that carry these labels now (deleted rules' runs included).
    rule_labels: tuple[LabelRequirement, ...] = ()
