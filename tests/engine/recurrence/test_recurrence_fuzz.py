"""Any text — near-miss RRULEs, cron, English, garbage — parses or raises InvalidSchedule,
and whatever parses previews in bounded time (the budget is generous: CI machines are shared)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.recurrence import InvalidSchedule, parse_schedule, preview

_ANCHOR = datetime(2026, 1, 1, 9, tzinfo=UTC)
_PARTS = st.sampled_from(
    [
        "FREQ=YEARLY", "FREQ=MONTHLY", "FREQ=WEEKLY", "FREQ=DAILY", "FREQ=HOURLY",
        "FREQ=MINUTELY", "FREQ=SECONDLY", "INTERVAL=3", "INTERVAL=0", "COUNT=5", "COUNT=-1",
        "UNTIL=20270101T000000Z", "UNTIL=20200101", "BYMONTH=2", "BYMONTH=13", "BYMONTHDAY=30",
        "BYMONTHDAY=-1", "BYMONTHDAY=32", "BYDAY=MO,FR", "BYDAY=-1SU", "BYDAY=5FR",
        "BYDAY=60MO", "BYSETPOS=-1", "BYSETPOS=0", "BYSETPOS=9", "BYWEEKNO=53", "BYYEARDAY=366",
        "BYYEARDAY=-1", "BYHOUR=2", "BYHOUR=25", "BYMINUTE=30", "BYSECOND=0,30", "WKST=SU",
        "WKST=XX", "BYFOO=1", "=",
    ]
)  # fmt: skip
_OTHER = st.sampled_from(
    [
        "*/5 * * * *", "0 9 31 2 *", "0 9 * * 1-5 2026", "@daily", "@reboot", "every 15m",
        "every 0m", "PT1H", "P", "2026-12-01T09:00:00+01:00", "2026-02-30T09:00:00",
        "every weekday at 9am", "every blursday", "on the last friday of every month at 18:00",
        "DTSTART;TZID=Europe/Berlin:20260329T023000 RRULE:FREQ=DAILY",
        "DTSTART;TZID=Nowhere/Land:20260101T000000 RRULE:FREQ=DAILY", "EXDATE:20260101T000000Z",
    ]
)  # fmt: skip
_TEXTS = st.one_of(
    st.lists(_PARTS, min_size=1, max_size=6).map(";".join),
    _OTHER,
    st.text(max_size=60),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS, st.sampled_from(["UTC", "Europe/Berlin", "Australia/Lord_Howe", "Bad/Zone"]))
def test_any_text_parses_or_is_invalid_and_previews_fast(text: str, zone: str) -> None:
    started = time.perf_counter()
    try:
        schedule = parse_schedule(text, zone, anchor=_ANCHOR)
    except InvalidSchedule as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    result = preview(schedule, _ANCHOR, 5)
    assert all(at > _ANCHOR for at in result.occurrences)
    assert time.perf_counter() - started < 5
