"""The schedule text a list shows is kept per process (`engine.service.reads.describe`) under the
rule's schedule inputs: as a property, whatever rows were described before, a rule's text is
the one worked out afresh from its own row. Rows are drawn from small sets of every input so that
many share all inputs but one: a key that leaves an input out serves a stale text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.service.reads import _worked_out, describe
from engine.store.snapshots import RULE_COLUMNS

CREATED = datetime(2026, 3, 1, tzinfo=UTC)
SCHEDULES = (
    "FREQ=DAILY;BYHOUR=9;BYMINUTE=0",
    "FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=2;BYMINUTE=30;COUNT=3",
    "FREQ=MONTHLY;BYMONTHDAY=-1;UNTIL=20270101T000000Z",
    "every 15m",
    "every weekday at 9:00",
    "30 2 * * *",
    "not a schedule at all",
)
HOLIDAYS = {"name": "holidays", "excluded": ["2026-12-25"], "included": []}
#: The same name, other dates: only the dates tell the two copies apart.
OTHER_HOLIDAYS = {"name": "holidays", "excluded": ["2026-12-24", "2026-12-26"], "included": []}
EXTRA_DAYS = {"name": "extra", "excluded": [], "included": ["2026-12-27"]}

#: What the schedule text is worked out from, each from a small set.
SCHEDULE_INPUTS = {
    "schedule": st.sampled_from(SCHEDULES),
    "timezone": st.sampled_from(("UTC", "Europe/Berlin", "America/New_York")),
    "dst_gap": st.sampled_from(("shift", "skip")),
    "dst_repeat": st.sampled_from(("first", "both")),
    "start_at": st.sampled_from((None, CREATED + timedelta(days=40, minutes=7))),
    "created_at": st.sampled_from((CREATED, CREATED + timedelta(days=200))),
    "calendar_dates": st.sampled_from(([], [HOLIDAYS], [OTHER_HOLIDAYS], [HOLIDAYS, EXTRA_DAYS])),
}
#: Every other column a rule row has, as a stored rule would hold it.
OTHER_COLUMNS: dict[str, Any] = {
    "name": "r", "runtime": "python", "code": "def main(ctx): pass", "params": None,
    "enabled": True, "version": 1, "misfire_policy": "run_latest", "misfire_grace_s": None,
    "overlap_policy": "allow", "max_attempts": 1, "backoff_s": 10.0, "backoff_max_s": 600.0,
    "timeout_ms": 5000, "memory_mb": 64, "priority": 0, "jitter_s": 0, "end_at": None,
    "deleted_at": None,
}  # fmt: skip

rows = st.fixed_dictionaries(
    {"id": st.sampled_from(("r_1", "r_2")), "tenant_id": st.sampled_from(("t_1", "t_2"))}
    | SCHEDULE_INPUTS
).map(lambda drawn: OTHER_COLUMNS | drawn)


def test_the_rows_drawn_hold_every_column_a_rule_snapshot_reads() -> None:
    """A column added to the snapshot must be drawn here too (and considered for the key)."""
    assert set(RULE_COLUMNS) == set(SCHEDULE_INPUTS) | set(OTHER_COLUMNS)


@settings(max_examples=300, deadline=None)
@given(st.lists(rows, min_size=1, max_size=12), st.sampled_from((1, 5)))
def test_a_listed_schedule_text_is_always_its_own_rows(drawn: list[dict], horizon: int) -> None:
    for row in drawn:
        assert describe(row, horizon) == _worked_out(row, horizon), row
