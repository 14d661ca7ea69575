"""A tenant's claim window: a backlog is claimed half a window at a time, not one per run."""

from __future__ import annotations

from datetime import UTC, datetime

from support.tenant_states import tenant_state

from engine.runner import Claimed
from engine.tenant_state import TenantState

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _state(max_concurrency: int) -> TenantState:
    return tenant_state(NOW, max_concurrency)


def _fill(state: TenantState, count: int) -> None:
    for action_id in range(count):
        state.in_flight[action_id] = Claimed({"id": action_id, "rule_id": None}, 1, NOW)


async def test_refill_waits_for_half_the_window() -> None:
    state = _state(max_concurrency=2)  # window of 8
    _fill(state, 8)
    assert state.claim_room == 0 and not state.has_room_to_refill
    for action_id in range(3):
        del state.in_flight[action_id]
    assert state.claim_room == 3 and not state.has_room_to_refill
    del state.in_flight[3]
    assert state.claim_room == 4 and state.has_room_to_refill


async def test_one_slot_refills_at_two_free() -> None:
    state = _state(max_concurrency=1)
    _fill(state, 4)
    assert not state.has_room_to_refill
    del state.in_flight[0]
    assert not state.has_room_to_refill
    del state.in_flight[1]
    assert state.has_room_to_refill
