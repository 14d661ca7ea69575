"""The pure policy functions, case by case (no database, no clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.due_actions import due_action

from engine.domain.due import DueAction
from engine.domain.occurrences import due_at
from engine.domain.policies import Circumstances, Verdict, decide, retry_delay
from engine.domain.records import MisfirePolicy, OverlapPolicy
from engine.recurrence import parse_schedule

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)
SCHEDULE = parse_schedule("* * * * *", "UTC", anchor=T0 - timedelta(days=1))


def action(**changes: Any) -> DueAction:
    """A rule's own occurrence due at 09:00, first attempt, default policies; `r_<name>`
    changes its rule."""
    rule_changes = {k[2:]: v for k, v in changes.items() if k.startswith("r_")}
    own = {k: v for k, v in changes.items() if not k.startswith("r_")}
    for name, kind in (("misfire_policy", MisfirePolicy), ("overlap_policy", OverlapPolicy)):
        if name in rule_changes:
            rule_changes[name] = kind(rule_changes[name])
    return due_action(rule_changes, scheduled_at=T0, due_at=T0, **own)


RUN_ALL_90 = action(r_misfire_policy="run_all", r_misfire_grace_s=90)
#: A one-off (no rule) due at 09:00 that expires at 09:05.
ONE_OFF = action(rule_id=None, key="k", expires_at=T0 + 5 * MIN)


def at(
    now: datetime, busy_since: datetime | None = None, over_quota: bool = False
) -> Circumstances:
    return Circumstances(now, busy_since, over_quota, default_grace_s=60)


@pytest.mark.parametrize(
    ("row", "circumstances", "verdict", "reason"),
    [
        (action(), at(T0), Verdict.RUN, None),  # on time
        (action(), at(T0 + 3 * MIN), Verdict.SKIP, "misfire"),  # run_latest: a later one is due
        (action(), at(T0 + 30 * timedelta(seconds=1)), Verdict.RUN, None),  # late, but the latest
        (action(r_misfire_policy="skip"), at(T0 + 30 * timedelta(seconds=1)), Verdict.RUN, None),
        (action(r_misfire_policy="skip"), at(T0 + 2 * MIN), Verdict.SKIP, "misfire"),  # > 60 s
        (RUN_ALL_90, at(T0 + MIN), Verdict.RUN, None),
        (RUN_ALL_90, at(T0 + 2 * MIN), Verdict.EXPIRE, "grace"),
        (action(r_misfire_policy="run_all", attempt=1, claimed_at=T0), at(T0 + 9 * MIN),
         Verdict.RUN, None),
        (action(claimed_at=T0), at(T0 + 9 * MIN), Verdict.RUN, None),  # given back unstarted
        (action(key="trigger:x"), at(T0 + 9 * MIN), Verdict.RUN, None),  # not the chain
        (action(), at(T0, over_quota=True), Verdict.SKIP, "quota"),
        (action(), at(T0, busy_since=T0 - MIN), Verdict.SKIP, "overlap"),
        (action(r_overlap_policy="allow"), at(T0, busy_since=T0 - MIN), Verdict.RUN, None),
        (action(r_overlap_policy="queue_one"), at(T0, busy_since=T0 - MIN), Verdict.DEFER, None),
        (action(), at(T0, busy_since=T0 + timedelta(seconds=1)), Verdict.DEFER, None),  # catch-up
        (action(r_enabled=False, claimed_at=T0), at(T0), Verdict.SKIP, "paused"),  # retry, paused
        (action(key="trigger:x", r_enabled=False), at(T0), Verdict.RUN, None),  # by hand
        (action(r_version=2, claimed_at=T0), at(T0), Verdict.CANCEL, "rule_changed"),
        (action(r_deleted_at=T0, claimed_at=T0), at(T0), Verdict.CANCEL, "rule_deleted"),
        (ONE_OFF, at(T0 + 5 * MIN), Verdict.RUN, None),  # at its expiry: still in time
        (ONE_OFF, at(T0 + 5 * MIN + timedelta(seconds=1)), Verdict.EXPIRE, "expires_at"),
        (ONE_OFF, at(T0 + 6 * MIN, over_quota=True), Verdict.EXPIRE, "expires_at"),
        (action(key="k", expires_at=T0 + MIN), at(T0 + 2 * MIN), Verdict.EXPIRE, "expires_at"),
    ],
    ids=[
        "on-time", "run-latest-skips", "run-latest-runs-latest", "skip-within-tolerance",
        "skip-past-tolerance", "run-all-within-grace", "run-all-past-grace", "retry-exempt",
        "given-back-exempt", "trigger-exempt", "quota", "overlap-skip", "overlap-allow",
        "overlap-queue", "catch-up-waits", "retry-of-paused-rule-skipped",
        "trigger-of-paused-rule-runs", "old-version-cancelled", "deleted-rule-cancelled",
        "one-off-at-expiry-runs", "one-off-past-expiry-expires", "expiry-before-quota",
        "rules-one-off-expires",
    ],
)  # fmt: skip
def test_decide(
    row: DueAction, circumstances: Circumstances, verdict: Verdict, reason: str | None
) -> None:
    decision = decide(row, SCHEDULE, circumstances)
    assert (decision.verdict, decision.reason) == (verdict, reason)


def test_run_latest_chains_to_the_latest_and_records_the_missed() -> None:
    decision = decide(action(), SCHEDULE, at(T0 + 3 * MIN + timedelta(seconds=5)))
    assert decision.chain_from == T0 + 3 * MIN and decision.chain_inclusive
    assert decision.missed == (T0 + MIN, T0 + 2 * MIN)


def test_retry_delay_grows_and_is_capped() -> None:
    delays = [retry_delay(n, 10, 60).total_seconds() for n in range(1, 6)]
    assert 5 <= delays[0] <= 10 and 10 <= delays[1] <= 20 and all(30 <= d <= 60 for d in delays[3:])


def test_jitter_is_stable_and_within_range() -> None:
    first = due_at("r_1", T0, 30)
    assert first == due_at("r_1", T0, 30)
    assert T0 <= first < T0 + timedelta(seconds=30)
    assert due_at("r_1", T0, 0) == T0
