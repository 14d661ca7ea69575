"""What the API shows about a rule beyond its fields: timeline, statistics, change preview."""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import RowMapping

from engine.deps import Deps
from engine.domain.due import RuleSnapshot
from engine.domain.occurrences import rule_schedule, upcoming
from engine.domain.records import ActionStatus, SkipReason, TimelineEntry
from engine.domain.rule_filters import RunFilter
from engine.domain.validation import check_fields, parse_rule_schedule, require_aware, spec_with
from engine.errors import InvalidRule
from engine.recurrence import RangeTooLarge, Schedule
from engine.recurrence.calendars import skipped_between
from engine.recurrence.preview import skip_note
from engine.service.calendar_reads import resolve
from engine.service.rule_writes import load, spec_from_row
from engine.store import actions as action_store
from engine.store import runs as run_store
from engine.store.calendar_codec import rule_copy
from engine.store.rows import rule_columns
from engine.store.snapshots import rule_snapshot
from engine.store.tables import actions

_FATE_OF_SKIP = {"paused": "paused", "quota": "quota"}
STATS_RUNS = 200
#: Most actions one timeline request reads (a longer range is refused, with a hint).
MAX_TIMELINE_ACTIONS = 5000
_EPSILON = timedelta(microseconds=1)


def _fate(action: RowMapping) -> str:
    if action["status"] == ActionStatus.SKIPPED:
        return _FATE_OF_SKIP.get(action["reason"], "skipped")
    return str(action["status"])


async def timeline(
    deps: Deps, tenant_id: str, rule_id: str, start: datetime, end: datetime
) -> list[TimelineEntry]:
    """One entry per expected occurrence in [start, end) and per action planned in it."""
    require_aware("start", start)
    require_aware("end", end)
    if end <= start:
        raise InvalidRule("end", "must be after start")
    async with deps.db.connect() as conn:
        rule = await load(conn, tenant_id, rule_id)
        planned = await action_store.rule_actions_between(
            conn, rule_id, start, end, MAX_TIMELINE_ACTIONS + 1
        )
        if len(planned) > MAX_TIMELINE_ACTIONS:
            raise InvalidRule(
                "end",
                f"the range holds more than {MAX_TIMELINE_ACTIONS} actions of this rule",
                hint="ask for a shorter range",
            )
        ids = [a["id"] for a in planned]
        run_ids = await run_store.run_ids_of(conn, tenant_id, ids) if ids else []
    schedule = rule_schedule(rule_snapshot(rule), deps.config.horizon_years)
    try:
        expected = schedule.between(start, end)
    except RangeTooLarge as exc:
        raise InvalidRule("end", str(exc), hint="ask for a shorter range") from exc
    runs_of: dict[int, list[int]] = defaultdict(list)
    for action_id, run_id in run_ids:
        runs_of[action_id].append(run_id)
    # A DST gap trace stands for a wall time of its own, even when another occurrence (the end
    # of the gap) shares its instant: it is an entry by itself, before that occurrence.
    traces = [a for a in planned if a["reason"] == SkipReason.DST_GAP]
    by_time: dict[datetime, list[RowMapping]] = defaultdict(list)
    for action in planned:
        if action["reason"] != SkipReason.DST_GAP:
            by_time[action["scheduled_at"]].append(action)
    now = deps.clock.now()
    # Occurrences up to the rule's creation were never expected of it.
    expected = [at for at in expected if at > rule["created_at"] or at in by_time]
    paused_at = None if rule["enabled"] else rule["paused_at"]
    entries = [_entry(a["scheduled_at"], [a], runs_of, now, None) for a in traces]
    entries += [_entry(at, by_time.pop(at, []), runs_of, now, paused_at) for at in expected]
    entries += [_entry(at, found, runs_of, now, None) for at, found in by_time.items()]
    entries += _calendar_entries(schedule, start, end)
    return sorted(entries, key=lambda e: e.scheduled_at)


def _calendar_entries(schedule: Schedule, start: datetime, end: datetime) -> list[TimelineEntry]:
    """One `skipped` entry (reason `calendar`) per day in [start, end) a calendar excludes an
    occurrence of: nothing is planned for those, so nothing else would show them."""
    skips = skipped_between(
        schedule.unfiltered_after, schedule.calendars, start - _EPSILON, end, MAX_TIMELINE_ACTIONS
    )
    return [
        TimelineEntry(s.at, "skipped", "calendar", 0, None, (), skip_note(s.calendar))
        for s in skips
        if s.at < end
    ]


def _entry(
    at: datetime,
    found: Sequence[RowMapping],
    runs_of: Mapping[int, list[int]],
    now: datetime,
    paused_at: datetime | None,
) -> TimelineEntry:
    """One occurrence's fate. Without an action, an occurrence after the pause of a rule that
    is still paused is `paused`, past or future: none runs until it resumes (resuming records
    the past ones as skipped/paused)."""
    if not found and paused_at is not None and at > paused_at:
        return TimelineEntry(at, "paused", SkipReason.PAUSED, 0, None, ())
    if not found:
        return TimelineEntry(at, "not_yet_due" if at > now else "missed", None, 0, None, ())
    last = max(found, key=lambda a: a["id"])
    run_ids = tuple(sorted(r for a in found for r in runs_of.get(a["id"], [])))
    attempts = sum(a["attempt"] for a in found)
    return TimelineEntry(at, _fate(last), last["reason"], attempts, last["id"], run_ids)


def _p(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def rule_stats(deps: Deps, tenant_id: str, rule_id: str) -> dict[str, Any]:
    async with deps.db.connect() as conn:
        rule = await load(conn, tenant_id, rule_id)
        runs = await run_store.list_runs(
            conn, tenant_id, where=RunFilter(rule_id=rule_id), limit=STATS_RUNS
        )
        query = (
            select(actions.c.reason, func.count())
            .where(
                actions.c.rule_id == rule_id,
                actions.c.status.in_((ActionStatus.SKIPPED, ActionStatus.EXPIRED)),
            )
            .group_by(actions.c.reason)
        )
        skips = {reason or "none": int(n) for reason, n in await conn.execute(query)}
    snapshot = rule_snapshot(rule)
    schedule = rule_schedule(snapshot, deps.config.horizon_years)
    cadence = _median_gap(upcoming(schedule, snapshot, deps.clock.now(), 11))
    starts = sorted(r["started_at"] for r in runs if r["outcome"] == "ok")
    durations = [r["duration_ms"] for r in runs]
    memory = [r["peak_memory_bytes"] for r in runs if r["peak_memory_bytes"] is not None]
    median_ms = statistics.median(durations) if durations else None
    return {
        "runs": len(runs),
        "configured_interval_s": cadence,
        "achieved_interval_s": _median_gap(starts),
        "lateness_p50_ms": _p([r["lateness_ms"] for r in runs], 0.5),
        "lateness_p95_ms": _p([r["lateness_ms"] for r in runs], 0.95),
        "run_time_share": None if not cadence or median_ms is None else median_ms / 1000 / cadence,
        "memory_p95_pct_of_limit": _pct(_p(memory, 0.95), rule["memory_mb"] * 1024 * 1024),
        "duration_p95_pct_of_timeout": _pct(_p(durations, 0.95), rule["timeout_ms"]),
        "skips_by_reason": skips,
    }


def _pct(value: float | None, limit: float) -> float | None:
    return None if value is None else round(100 * value / limit, 1)


def _median_gap(instants: Sequence[datetime]) -> float | None:
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(instants)]
    return statistics.median(gaps) if gaps else None


async def preview_change(
    deps: Deps, tenant_id: str, rule_id: str, changes: Mapping[str, Any], count: int
) -> dict[str, Any]:
    """The next `count` occurrences before and after `changes`, and what happens to pending ones."""
    count = max(1, min(count, 100))
    async with deps.db.connect() as conn:
        row = await load(conn, tenant_id, rule_id)
        pending = await action_store.list_actions(
            conn,
            tenant_id,
            status=ActionStatus.PENDING,
            rule_id=rule_id,
            before_id=None,
            limit=1000,
        )
        spec = spec_with(spec_from_row(row), dict(changes))
        calendars = await resolve(conn, tenant_id, spec.calendars)
    check_fields(spec)
    profile = await deps.profile(tenant_id)
    parse_rule_schedule(spec, row["created_at"], deps.schedule_limits(profile))
    copy = {"calendar_dates": rule_copy(calendars)}
    changed = rule_snapshot(dict(row) | rule_columns(spec) | copy)
    before = _upcoming(deps, rule_snapshot(row), count)
    after = _upcoming(deps, changed, count) if spec.enabled else []
    # As rule_writes.change finishes them: disabling a rule is a pause.
    fate = "skipped (paused)" if row["enabled"] and not spec.enabled else "cancelled"
    return {
        "before": before,
        "after": after,
        "pending": (
            f"{len(pending)} pending action(s) of version {row['version']} will be {fate}; "
            + (f"the next run will be at {after[0]}" if after else "no new run will be planned")
        ),
    }


def _upcoming(deps: Deps, rule: RuleSnapshot, count: int) -> list[str]:
    schedule = rule_schedule(rule, deps.config.horizon_years)
    return [at.isoformat() for at in upcoming(schedule, rule, deps.clock.now(), count)]
