"""`PUT` of a rule by the client's own id: create it, or replace it whole.

The same body twice changes nothing the second time (no new version, no re-planning). A
replace is an edit like any other (`rule_writes.change`): the pending occurrence of the old
version is cancelled in the transaction that writes the new one, so no occurrence runs twice.
Two clients putting one new id at once: one insert wins, the other finds the rule and
replaces it, so there is one rule in the end, holding one of the two bodies whole.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import RowMapping

from engine.deps import Deps
from engine.domain.records import SPEC_FIELDS, RuleSpec
from engine.errors import RuleIdTaken, RuleNotFound, StaleVersion
from engine.service import rule_etags, rule_writes
from engine.store import rules as rule_store

#: Times a put reads the rule again after a concurrent put created it first.
MAX_RACES = 3


async def put(
    deps: Deps,
    tenant_id: str,
    rule_id: str,
    spec: RuleSpec,
    if_match: int | None,
    *,
    must_exist: bool,
) -> bool:
    """Make rule `rule_id` of the tenant be `spec`; True when it was created.

    `must_exist` (an If-Match was sent, `*` included): only replace, never create."""
    for _ in range(MAX_RACES):
        async with deps.db.connect() as conn:
            row = await rule_store.get_rule(conn, tenant_id, rule_id)
        if row is not None:
            await _replace(deps, row, spec, if_match)
            return False
        if must_exist:
            raise RuleNotFound(
                f"no rule {rule_id!r} for this tenant to replace: send no If-Match to create it"
            )
        try:
            await rule_writes.create(deps, tenant_id, spec, rule_id)
            return True
        except RuleIdTaken:
            if not await _is_visible(deps, tenant_id, rule_id):
                raise
    raise RuleIdTaken(rule_id)


async def _is_visible(deps: Deps, tenant_id: str, rule_id: str) -> bool:
    async with deps.db.connect() as conn:
        return await rule_store.get_rule(conn, tenant_id, rule_id) is not None


async def _replace(deps: Deps, row: RowMapping, spec: RuleSpec, if_match: int | None) -> None:
    if not rule_etags.is_current(row, if_match):
        raise StaleVersion(row["version"])
    changes = _changes(rule_writes.spec_from_row(row), spec)
    if changes:
        await rule_writes.change(deps, row["tenant_id"], row["id"], changes, if_match)


def _changes(current: RuleSpec, wanted: RuleSpec) -> dict[str, Any]:
    """What to write: nothing for the same rule again, only `enabled` for a pause or a
    resume (an If-Match read before it stays current), else every field (a concurrent
    replace is then overwritten whole, never merged field by field)."""
    differing = {name for name in SPEC_FIELDS if getattr(current, name) != getattr(wanted, name)}
    if differing <= {"enabled"}:
        return {name: wanted.enabled for name in differing}
    return {name: getattr(wanted, name) for name in SPEC_FIELDS}
