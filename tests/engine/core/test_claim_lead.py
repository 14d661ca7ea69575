"""The claim lead follows how long claims take: twice the slowest of the last few, within its
bounds, and back to the least once the slow ones are behind."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from engine.loop.claim_lead import CLAIM_AHEAD, MAX_LEAD, RECENT_CLAIMS, ClaimLead

TOOK = st.integers(min_value=0, max_value=1_000).map(lambda ms: timedelta(milliseconds=ms))


@given(st.lists(TOOK, max_size=3 * RECENT_CLAIMS))
def test_the_lead_is_twice_the_slowest_recent_claim_within_its_bounds(
    took: list[timedelta],
) -> None:
    lead = ClaimLead()
    for each in took:
        lead.note(each)
    slowest = max(took[-RECENT_CLAIMS:], default=timedelta(0))
    assert lead.value == min(MAX_LEAD, max(CLAIM_AHEAD, 2 * slowest))
    assert CLAIM_AHEAD <= lead.value <= MAX_LEAD


def test_one_slow_claim_widens_the_lead_until_quick_ones_replace_it() -> None:
    lead = ClaimLead()
    lead.note(timedelta(milliseconds=60))
    assert lead.value == timedelta(milliseconds=120)
    for _ in range(RECENT_CLAIMS - 1):
        lead.note(timedelta(milliseconds=1))
    assert lead.value == timedelta(milliseconds=120)
    lead.note(timedelta(milliseconds=1))
    assert lead.value == CLAIM_AHEAD
