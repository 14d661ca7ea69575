"""A `RuleFilter` as SQL: the conditions on `rules` that select the same rules on SQLite and
PostgreSQL.

Labels are a JSON object on the rule; `labels[key].as_string()` is SQLAlchemy's portable JSON
lookup (`JSON_EXTRACT` on SQLite, `->>` on PostgreSQL), NULL where the key is absent.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select, true

from engine.domain.labels import LabelRequirement
from engine.domain.rule_filters import RuleFilter, RuleState, RunFilter
from engine.store.tables import rules, runs


def _label(requirement: LabelRequirement) -> Any:
    found = rules.c.labels[requirement.key].as_string()
    return found.is_not(None) if requirement.value is None else found == requirement.value


#: The outcome of the rule's latest run (highest id), NULL before its first run: one seek of
#: `ix_runs_rule_id_id` per rule, however many runs it has.
latest_outcome = (
    select(runs.c.outcome)
    .where(runs.c.rule_id == rules.c.id)
    .order_by(runs.c.id.desc())
    .limit(1)
    .scalar_subquery()
)


def _search(text: str) -> Any:
    pattern = f"%{text.lower()}%"
    return func.lower(rules.c.name).like(pattern) | func.lower(rules.c.description).like(pattern)


def rule_conditions(selection: RuleFilter) -> Any:
    """The WHERE clause (beyond tenant and visibility) of the rules `selection` means."""
    conditions = [_label(requirement) for requirement in selection.labels]
    if selection.state is not None:
        conditions.append(rules.c.enabled.is_(selection.state is RuleState.ACTIVE))
    if selection.runtime is not None:
        conditions.append(rules.c.runtime == selection.runtime)
    if selection.last_outcome is not None:
        conditions.append(latest_outcome == selection.last_outcome)
    if selection.search:
        conditions.append(_search(selection.search))
    return and_(true(), *conditions)


def run_conditions(tenant_id: str, where: RunFilter) -> Any:
    """The WHERE clause (beyond the tenant) of the runs `where` means."""
    conditions = []
    if where.rule_id is not None:
        conditions.append(runs.c.rule_id == where.rule_id)
    if where.outcome is not None:
        conditions.append(runs.c.outcome == where.outcome)
    if where.since is not None:
        conditions.append(runs.c.started_at >= where.since)
    if where.rule_labels:
        labelled = select(rules.c.id).where(
            rules.c.tenant_id == tenant_id, *(_label(r) for r in where.rule_labels)
        )
        conditions.append(runs.c.rule_id.in_(labelled))
    return and_(true(), *conditions)
