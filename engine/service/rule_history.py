"""A rule's history: its saved versions, what changed between two, and rolling back to one.

A rollback is an edit whose changes are the whole definition of the chosen version: it makes a
new version equal to it (the history only grows), honours If-Match like any edit, and re-plans
like one (pending actions of the current version are cancelled, the next occurrence is planned
after now), so an occurrence that already ran never runs again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.deps import Deps
from engine.domain.records import SPEC_FIELDS, RuleSpec
from engine.errors import RuleNotFound, RuleVersionNotFound
from engine.service import rule_writes
from engine.store import rule_versions as version_store
from engine.store import rules as rule_store
from engine.store.rule_versions import RuleVersion


@dataclass(frozen=True)
class FieldChange:
    """One field that differs between two versions."""

    field: str
    before: Any
    after: Any


def diff(before: RuleSpec, after: RuleSpec) -> list[FieldChange]:
    """The fields whose values differ, in the order a rule declares them."""
    old, new = asdict(before), asdict(after)
    return [
        FieldChange(name, old[name], new[name]) for name in SPEC_FIELDS if old[name] != new[name]
    ]


async def versions(
    deps: Deps, tenant_id: str, rule_id: str, after: int | None, limit: int
) -> list[RuleVersion]:
    """The rule's versions in order, after version `after` (RuleNotFound for no such rule)."""
    async with deps.db.connect() as conn:
        if await rule_store.get_rule(conn, tenant_id, rule_id) is None:
            raise RuleNotFound.of(rule_id)
        return await version_store.list_versions(conn, tenant_id, rule_id, after, limit)


async def version(deps: Deps, tenant_id: str, rule_id: str, number: int) -> RuleVersion:
    """Version `number` of the rule; RuleNotFound or RuleVersionNotFound."""
    async with deps.db.connect() as conn:
        if await rule_store.get_rule(conn, tenant_id, rule_id) is None:
            raise RuleNotFound.of(rule_id)
        found = await version_store.get_version(conn, tenant_id, rule_id, number)
    if found is None:
        raise RuleVersionNotFound(
            f"rule {rule_id!r} has no version {number}: GET /v1/rules/{rule_id}/versions "
            "lists the versions kept"
        )
    return found


async def rollback(
    deps: Deps, tenant_id: str, rule_id: str, number: int, expected_version: int | None
) -> None:
    """Make a new version of the rule equal to version `number`."""
    chosen = await version(deps, tenant_id, rule_id, number)
    changes = {name: getattr(chosen.spec, name) for name in SPEC_FIELDS}
    await rule_writes.change(deps, tenant_id, rule_id, changes, expected_version)
