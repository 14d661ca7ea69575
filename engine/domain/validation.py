"""Checking a rule before it is saved: every field, the schedule, the code and the quotas.

Each failure names the field, what is wrong and how to fix it, and nothing is saved.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.domain.labels import check_labels
from engine.domain.records import MisfirePolicy, OverlapPolicy, RuleSpec
from engine.domain.rule_schedules import compile_schedule
from engine.errors import InvalidRule, InvalidRuleSchedule, QuotaExceeded
from engine.recurrence import InvalidSchedule, Schedule, ScheduleError, ScheduleLimits
from sandbox import Limits, RuntimeName, Sandbox, SandboxError, ScriptRejected
from tenants.quotas import Quotas

_CHOICES: dict[str, tuple[str, ...]] = {
    "runtime": tuple(RuntimeName),
    "dst_gap": ("shift", "skip"),
    "dst_repeat": ("first", "both"),
    "misfire_policy": tuple(MisfirePolicy),
    "overlap_policy": tuple(OverlapPolicy),
}
#: (field, lowest, highest) of every number a rule carries.
_RANGES: tuple[tuple[str, float, float], ...] = (
    ("max_attempts", 1, 100),
    ("backoff_s", 0, 86_400),
    ("backoff_max_s", 0, 7 * 86_400),
    ("timeout_ms", 1, 3_600_000),
    ("memory_mb", 1, 65_536),
    ("priority", -1000, 1000),
    ("jitter_s", 0, 86_400),
    ("misfire_grace_s", 0, 366 * 86_400),
)


def check_fields(spec: RuleSpec) -> None:
    """Names, choices, ranges and dates: everything that needs neither parser nor sandbox."""
    if not spec.name.strip() or len(spec.name) > 200:
        raise InvalidRule("name", "must be 1-200 characters", hint="give the rule a short name")
    for name, choices in _CHOICES.items():
        if str(getattr(spec, name)) not in choices:
            raise InvalidRule(name, f"{getattr(spec, name)!r} is not one of {', '.join(choices)}")
    for name, low, high in _RANGES:
        value = getattr(spec, name)
        if value is not None and not low <= value <= high:
            raise InvalidRule(name, f"{value} is outside {low}..{high}")
    if not isinstance(spec.params, dict):
        raise InvalidRule("params", "must be a JSON object")
    check_labels(spec.labels)
    try:
        ZoneInfo(spec.timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidRuleSchedule(
            "timezone",
            f"unknown time zone {spec.timezone!r}",
            hint="use an IANA name such as Europe/Berlin",
        ) from exc
    for name in ("start_at", "end_at"):
        require_aware(name, getattr(spec, name))
    if spec.start_at and spec.end_at and spec.end_at <= spec.start_at:
        raise InvalidRule("end_at", "must be after start_at")


def require_aware(field: str, value: datetime | None) -> None:
    """Instants must carry their offset: a naive time would mean "whatever the server thinks"."""
    if value is not None and (not isinstance(value, datetime) or value.utcoffset() is None):
        raise InvalidRule(
            field, "must be an instant with a time zone offset", hint="add Z or +01:00"
        )


def check_quotas(spec: RuleSpec, quotas: Quotas) -> None:
    if spec.timeout_ms > quotas.max_timeout_ms:
        raise QuotaExceeded(
            "max_timeout_ms",
            f"timeout_ms {spec.timeout_ms} is above this tenant's limit of {quotas.max_timeout_ms}",
        )
    if spec.memory_mb > quotas.max_memory_mb:
        raise QuotaExceeded(
            "max_memory_mb",
            f"memory_mb {spec.memory_mb} is above this tenant's limit of {quotas.max_memory_mb}",
        )


def parse_rule_schedule(spec: RuleSpec, created_at: datetime, limits: ScheduleLimits) -> Schedule:
    """The rule's schedule as the engine evaluates it (`occurrences.rule_schedule`: anchored at
    its start, else its creation; its horizon counted from its creation), so that what a save
    checks and plans is what runs; InvalidRuleSchedule(field="schedule") when it does not parse."""
    anchor = spec.start_at or created_at
    try:
        return compile_schedule(
            spec.schedule, spec.timezone, anchor, str(spec.dst_gap), str(spec.dst_repeat),
            limits, since=created_at,
        )  # fmt: skip
    except InvalidSchedule as exc:
        raise InvalidRuleSchedule(
            "schedule", exc.reason, position=exc.position, hint=exc.hint or None
        ) from exc
    except ScheduleError as exc:
        raise InvalidRuleSchedule("schedule", str(exc)) from exc


async def check_code(
    sandbox: Sandbox, runtime: str, code: str, timeout_ms: int | None = None
) -> None:
    """Check the code in the sandbox, within the time limit of the rule (or one-off) being
    saved: checking a hostile script costs at most what running it would."""
    limits = None if timeout_ms is None else Limits(timeout_s=timeout_ms / 1000)
    try:
        await sandbox.runtime(runtime).validate(code, limits)
    except ScriptRejected as exc:
        raise InvalidRule(
            "code", exc.reason, line=exc.line, hint="fix the line and save again"
        ) from exc
    except SandboxError as exc:
        raise InvalidRule("runtime", str(exc)) from exc


def spec_with(spec: RuleSpec, changes: dict[str, Any]) -> RuleSpec:
    """`spec` with `changes` applied; InvalidRule for a field a rule does not have."""
    known = {f.name for f in fields(RuleSpec)}
    for name in changes:
        if name not in known:
            raise InvalidRule(
                name, "is not a field of a rule", hint=f"use one of {', '.join(sorted(known))}"
            )
    values = {f.name: getattr(spec, f.name) for f in fields(RuleSpec)} | changes
    return RuleSpec(**values)
