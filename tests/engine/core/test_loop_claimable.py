"""What one claim takes: everything due within the claim window, and with it what comes due a
little later (one transaction for a few actions of a steady stream), except actions whose
overlap policy must be decided close to their due time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from support.due_actions import due_action
from support.tenant_states import tenant_state

from engine.domain.due import DueAction
from engine.loop.claim_lead import CLAIM_AHEAD
from engine.loop.tenant_loop import BATCH_AHEAD, claimable
from engine.loop.tenant_state import TenantState
from engine.runs.runner import Claimed

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SOON = NOW + CLAIM_AHEAD / 2
LATER = NOW + CLAIM_AHEAD + BATCH_AHEAD / 2
TOO_LATE = NOW + CLAIM_AHEAD + BATCH_AHEAD + timedelta(milliseconds=1)


def _state() -> TenantState:
    return tenant_state(NOW)


def _row(action_id: int, rule_id: str | None, due_at: datetime) -> DueAction:
    return due_action(id=action_id, rule_id=rule_id, due_at=due_at)


def _ids(rows: list[DueAction]) -> list[int]:
    return [r.id for r in rows]


def test_nothing_is_claimed_before_the_first_action_is_near() -> None:
    rows = [_row(1, None, LATER), _row(2, "r1", LATER)]
    assert claimable(rows, _state(), NOW, 10) == []


def test_a_claim_takes_what_comes_due_soon_after_but_not_beyond() -> None:
    rows = [_row(1, None, SOON), _row(2, None, LATER), _row(3, "r2", LATER)]
    rows.append(_row(4, None, TOO_LATE))
    assert _ids(claimable(rows, _state(), NOW, 10)) == [1, 2, 3]


def test_the_room_caps_a_claim() -> None:
    rows = [_row(1, None, SOON), _row(2, None, LATER), _row(3, None, LATER)]
    assert _ids(claimable(rows, _state(), NOW, 2)) == [1, 2]


def test_a_busy_rule_waits_for_its_own_claim_window() -> None:
    """Its previous run may end before its due time: `skip` or `queue_one` decide then."""
    state = _state()
    state.in_flight[9] = Claimed(due_action(id=9, rule_id="busy"), 1, NOW)
    rows = [_row(1, None, SOON), _row(2, "busy", LATER), _row(3, "idle", LATER)]
    assert _ids(claimable(rows, state, NOW, 10)) == [1, 3]


def test_one_action_per_rule_rides_along() -> None:
    rows = [_row(1, "r1", SOON), _row(2, "r1", LATER), _row(3, "r2", LATER), _row(4, "r2", LATER)]
    assert _ids(claimable(rows, _state(), NOW, 10)) == [1, 3]


def test_everything_due_within_the_window_is_claimed_whatever_its_rule() -> None:
    state = _state()
    state.in_flight[9] = Claimed(due_action(id=9, rule_id="busy"), 1, NOW)
    rows = [_row(1, "busy", SOON), _row(2, "busy", SOON)]
    assert _ids(claimable(rows, state, NOW, 10)) == [1, 2], "decided by the overlap policy"


LEAD = timedelta(milliseconds=200)


def test_a_longer_lead_claims_earlier_and_batches_after_it() -> None:
    rows = [_row(1, None, NOW + LEAD), _row(2, "r2", NOW + LEAD + BATCH_AHEAD)]
    rows.append(_row(3, None, NOW + LEAD + BATCH_AHEAD + timedelta(milliseconds=1)))
    assert claimable(rows, _state(), NOW, 10) == [], "not yet within the least lead"
    assert _ids(claimable(rows, _state(), NOW, 10, LEAD)) == [1, 2]


def test_a_busy_rule_is_claimed_only_the_least_lead_before_it_is_due() -> None:
    """However long the lead, its overlap policy is decided as late as without one."""
    state = _state()
    state.in_flight[9] = Claimed(due_action(id=9, rule_id="busy"), 1, NOW)
    rows = [_row(1, "busy", NOW + LEAD), _row(2, "busy", SOON), _row(3, "idle", NOW + LEAD)]
    assert _ids(claimable(rows, state, NOW, 10, LEAD)) == [2, 3]
    assert claimable(rows[:1], state, NOW, 10, LEAD) == []
