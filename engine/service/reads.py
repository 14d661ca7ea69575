"""Reads for the API: every one scoped by tenant, another tenant's id behaves like a missing one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy.engine import RowMapping

from engine.deps import Deps
from engine.domain.occurrences import rule_schedule
from engine.domain.records import Action, Page, Rule, Run
from engine.domain.rule_filters import RuleFilter, RunFilter
from engine.domain.validation import require_aware
from engine.errors import RuleNotFound, RunNotFound
from engine.recurrence import ScheduleError
from engine.service.action_writes import load_action
from engine.service.row_records import (
    MAX_ID,
    action_from_row,
    decode_cursor,
    decode_int_cursor,
    encode_cursor,
    rule_from_row,
    run_from_row,
)
from engine.store import actions as action_store
from engine.store import rules as rule_store
from engine.store import runs as run_store
from engine.store.snapshots import rule_snapshot

MAX_PAGE = 500
#: Schedule texts kept by `describe`; past this it starts over.
MAX_SCHEDULE_TEXTS = 4_096
_schedule_texts: dict[tuple[Any, ...], str] = {}


def _limit(limit: int) -> int:
    return max(1, min(limit, MAX_PAGE))


def _split(rows: Sequence[RowMapping], limit: int) -> tuple[Sequence[RowMapping], str | None]:
    """The page's rows (fetched one too many) and the cursor to the next page, if any."""
    if len(rows) <= limit:
        return rows, None
    return rows[:limit], encode_cursor(rows[limit - 1]["id"])


async def _paged(
    deps: Deps,
    cursor: str | None,
    limit: int,
    fetch: Callable[..., Awaitable[list[RowMapping]]],
    **where: Any,
) -> tuple[Sequence[RowMapping], str | None]:
    """One page of a newest-first listing by integer id."""
    limit = _limit(limit)
    async with deps.db.connect() as conn:
        rows = await fetch(conn, before_id=decode_int_cursor(cursor), limit=limit + 1, **where)
    return _split(rows, limit)


def describe(row: RowMapping, horizon_years: int) -> str:
    """The rule's schedule in plain English (as written, if it no longer parses).

    Kept per process by everything `rule_schedule` reads from the row: a list answers the same
    rules again and again, and working a text out takes a snapshot of the whole row."""
    key = (
        row["schedule"],
        row["timezone"],
        row["dst_gap"],
        row["dst_repeat"],
        row["start_at"],
        row["created_at"],
        _digest(row["calendar_dates"]),
        horizon_years,
    )
    text = _schedule_texts.get(key)
    if text is None:
        if len(_schedule_texts) >= MAX_SCHEDULE_TEXTS:
            _schedule_texts.clear()
        text = _schedule_texts[key] = _worked_out(row, horizon_years)
    return text


def _digest(calendars: Any) -> str | None:
    """A rule's calendar copy in a key: up to thousands of dates, so kept as their digest."""
    if not calendars:
        return None
    return hashlib.sha256(json.dumps(calendars, sort_keys=True).encode()).hexdigest()


def _worked_out(row: RowMapping, horizon_years: int) -> str:
    try:
        return rule_schedule(rule_snapshot(row), horizon_years).describe().text
    except ScheduleError:
        return row["schedule"]


def _rules(deps: Deps, rows: Sequence[RowMapping]) -> list[Rule]:
    """The records of `rows` as `rule_store.list_rules` reads them."""
    return [
        rule_from_row(
            r,
            schedule_text=describe(r, deps.config.horizon_years),
            next_run_at=r["next_run_at"],
            last_outcome=r["last_outcome"],
        )
        for r in rows
    ]


async def get_rule(deps: Deps, tenant_id: str, rule_id: str) -> Rule:
    async with deps.db.connect() as conn:
        row = await rule_store.get_shown_rule(conn, tenant_id, rule_id)
    if row is None:
        raise RuleNotFound.of(rule_id)
    return _rules(deps, [row])[0]


async def list_rules(
    deps: Deps, tenant_id: str, cursor: str | None, limit: int, selection: RuleFilter
) -> Page[Rule]:
    limit = _limit(limit)
    async with deps.db.connect() as conn:
        rows = await rule_store.list_rules(
            conn, tenant_id, after_id=decode_cursor(cursor), limit=limit + 1, selection=selection
        )
    page, next_cursor = _split(rows, limit)
    return Page(_rules(deps, page), next_cursor)


async def get_action(deps: Deps, tenant_id: str, action_id: int) -> Action:
    async with deps.db.connect() as conn:
        return action_from_row(await load_action(conn, tenant_id, action_id))


async def list_actions(
    deps: Deps,
    tenant_id: str,
    status: str | None,
    rule_id: str | None,
    cursor: str | None,
    limit: int,
) -> Page[Action]:
    rows, next_cursor = await _paged(
        deps,
        cursor,
        limit,
        action_store.list_actions,
        tenant_id=tenant_id,
        status=status,
        rule_id=rule_id,
    )
    return Page([action_from_row(r) for r in rows], next_cursor)


async def get_run(deps: Deps, tenant_id: str, run_id: int) -> Run:
    async with deps.db.connect() as conn:
        row = None if not 0 < run_id <= MAX_ID else await run_store.get_run(conn, tenant_id, run_id)
    if row is None:
        raise RunNotFound(f"no run {run_id} for this tenant: check the run id")
    return run_from_row(row)


async def list_runs(
    deps: Deps, tenant_id: str, where: RunFilter, cursor: str | None, limit: int
) -> Page[Run]:
    require_aware("since", where.since)
    rows, next_cursor = await _paged(
        deps, cursor, limit, run_store.list_runs, tenant_id=tenant_id, where=where
    )
    return Page([run_from_row(r) for r in rows], next_cursor)
