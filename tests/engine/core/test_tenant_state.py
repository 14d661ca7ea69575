"""A tenant's claim window: a backlog is claimed half a window at a time, not one per run; a
run that ended frees its place, and its rule for the overlap policy, before it is recorded,
up to a bound."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st
from support.due_actions import due_action
from support.tenant_states import tenant_state

from engine.domain.changes import Change
from engine.loop.tenant_state import RECORDING_WINDOWS, WINDOW_PER_SLOT, TenantState
from engine.runs.runner import Claimed

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _state(max_concurrency: int) -> TenantState:
    return tenant_state(NOW, max_concurrency)


def _fill(state: TenantState, count: int, first: int = 0) -> None:
    for action_id in range(first, first + count):
        state.in_flight[action_id] = Claimed(due_action(id=action_id, rule_id=None), 1, NOW)


async def test_refill_waits_for_half_the_window() -> None:
    state = _state(max_concurrency=2)
    window = 2 * WINDOW_PER_SLOT
    _fill(state, window)
    assert state.claim_room == 0 and not state.has_room_to_refill
    for action_id in range(window // 2 - 1):
        del state.in_flight[action_id]
    assert state.claim_room == window // 2 - 1 and not state.has_room_to_refill
    del state.in_flight[window // 2 - 1]
    assert state.claim_room == window // 2 and state.has_room_to_refill


async def test_one_slot_refills_at_half_its_window() -> None:
    state = _state(max_concurrency=1)
    _fill(state, WINDOW_PER_SLOT)
    for action_id in range(WINDOW_PER_SLOT // 2 - 1):
        del state.in_flight[action_id]
    assert not state.has_room_to_refill
    del state.in_flight[WINDOW_PER_SLOT // 2 - 1]
    assert state.has_room_to_refill


async def test_ended_runs_free_their_place_until_the_recording_bound() -> None:
    state = _state(max_concurrency=1)
    window = WINDOW_PER_SLOT
    _fill(state, window)
    state.recording |= set(range(window))  # all ended, none recorded yet
    assert state.claim_room == window and state.has_room_to_refill
    cap = RECORDING_WINDOWS * window
    _fill(state, cap - window - 1, first=window)
    state.recording |= set(range(window, cap - 1))
    assert state.claim_room == 1  # one short of the bound on claimed, unrecorded actions
    _fill(state, 1, first=cap - 1)
    assert state.claim_room == 0 and not state.has_room_to_refill
    for action_id in range(window):  # recorded: gone from in flight
        del state.in_flight[action_id]
        state.recording.discard(action_id)
    assert state.claim_room == window - 1  # the last claimed one has not ended


@given(st.lists(st.sampled_from(Change), max_size=12))
def test_only_a_change_among_added_work_makes_claims_taken_ahead_check(
    changes: list[Change],
) -> None:
    """Whatever work is added before or after it, a change that may revoke a claim (an edit,
    a cancel, a key re-submission) makes a run claimed ahead check its claim before it starts,
    and added work alone never does; any of them makes a running loop read again."""

    async def noted() -> tuple[bool, bool]:
        state = _state(max_concurrency=1)
        state.loop_task = asyncio.current_task()
        seen = state.changes
        for change in changes:
            state.note_change(change)
        return state.changes != seen, state.take_change()

    must_check, rereads = asyncio.run(noted())
    assert must_check == (Change.CHANGED in changes)
    assert rereads == bool(changes)


#: An in-flight run: (its rule, 0-2; seconds after NOW it was claimed; whether it ended).
_RUNS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60), st.booleans()), max_size=10)


@given(_RUNS)
def test_only_a_run_still_going_makes_its_rule_busy(runs: list[tuple[int, int, bool]]) -> None:
    """A rule is busy (its next occurrence overlaps) while one of its runs is going, since the
    earliest such claim; a run that ended and only waits to be recorded no longer counts,
    however long recording takes."""
    state = _state(max_concurrency=3)
    for action_id, (rule, after_s, ended) in enumerate(runs):
        action = due_action(id=action_id, rule_id=f"r_{rule}")
        state.in_flight[action_id] = Claimed(action, 1, NOW + timedelta(seconds=after_s))
        if ended:
            state.recording.add(action_id)
    going = [(f"r_{rule}", after_s) for rule, after_s, ended in runs if not ended]
    assert state.busy_rules() == {rule for rule, _ in going}
    for rule in ("r_0", "r_1", "r_2"):
        claims = [after_s for name, after_s in going if name == rule]
        since = NOW + timedelta(seconds=min(claims)) if claims else None
        assert state.busy_since(rule) == since
    assert state.busy_since(None) is None
    state.deferred = {"r_0", "r_1", "r_2"}
    state.forget_finished_deferrals()  # a rule waits only while a run of it is going
    assert state.deferred == {rule for rule, _ in going}


async def test_a_deferred_rule_is_read_again_once_its_run_is_over() -> None:
    state = _state(max_concurrency=1)
    state.deferred = {"r_1"}
    state.rule_run_over("r_2")
    assert state.deferred == {"r_1"} and not state.take_change()
    state.rule_run_over("r_1")
    assert state.deferred == set() and state.take_change()
