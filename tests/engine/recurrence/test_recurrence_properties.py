"""Property tests: the fast `next_after` equals plain dateutil evaluation from DTSTART, and
next_after / between / preview agree, increase strictly, skip EXDATEs and terminate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

from dateutil.rrule import rrulestr
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from engine.recurrence import InvalidSchedule, parse_schedule, preview

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


@st.composite
def rules(draw: st.DrawFn) -> tuple[str, datetime, timedelta]:
    """(RRULE text, DTSTART in UTC, how far after DTSTART to query)."""
    freq = draw(st.sampled_from(["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"]))
    parts = [f"FREQ={freq}", f"INTERVAL={draw(st.integers(1, 5))}"]
    if draw(st.booleans()):
        parts.append("BYDAY=" + ",".join(draw(st.sets(st.sampled_from(_DAYS), min_size=1))))
    if freq in ("YEARLY", "MONTHLY", "DAILY") and draw(st.booleans()):
        days = draw(st.sets(st.integers(1, 31) | st.integers(-31, -1), min_size=1, max_size=4))
        parts.append("BYMONTHDAY=" + ",".join(map(str, sorted(days))))
    if freq in ("YEARLY", "MONTHLY") and draw(st.booleans()):
        months = draw(st.sets(st.integers(1, 12), min_size=1, max_size=4))
        parts.append("BYMONTH=" + ",".join(map(str, sorted(months))))
    if freq in ("YEARLY", "MONTHLY", "WEEKLY", "DAILY") and draw(st.booleans()):
        parts.append(
            "BYHOUR="
            + ",".join(map(str, sorted(draw(st.sets(st.integers(0, 23), min_size=1, max_size=3)))))
        )
    if (
        freq in ("MONTHLY", "YEARLY")
        and any(p.startswith("BYDAY") for p in parts)
        and draw(st.booleans())
    ):
        parts.append(f"BYSETPOS={draw(st.sampled_from([1, 2, -1, -2]))}")
    if draw(st.booleans()):
        parts.append(f"COUNT={draw(st.integers(1, 60))}")
    dtstart = draw(st.datetimes(datetime(2016, 1, 1), datetime(2026, 1, 1))).replace(
        microsecond=0, tzinfo=UTC
    )
    span_days = 20 if freq in ("HOURLY", "MINUTELY") else 900
    offset = draw(st.timedeltas(timedelta(0), timedelta(days=span_days)))
    return ";".join(parts), dtstart, offset


def _parse(rule: str, dtstart: datetime, exdates: str = "") -> object:
    text = f"DTSTART:{dtstart:%Y%m%dT%H%M%SZ} {exdates}RRULE:{rule}"
    try:
        return parse_schedule(text, "UTC")
    except InvalidSchedule:
        reject()


def _plain_after(rule: str, dtstart: datetime, instant: datetime) -> datetime | None:
    cap = dtstart.replace(year=dtstart.year + 10, day=min(dtstart.day, 28))
    until = "" if "COUNT" in rule else f";UNTIL={cap:%Y%m%dT%H%M%SZ}"
    plain = rrulestr(f"DTSTART:{dtstart:%Y%m%dT%H%M%SZ}\nRRULE:{rule}{until}")
    return plain.after(instant)


@_SETTINGS
@given(rules())
def test_fast_next_after_equals_plain_dateutil(case: tuple[str, datetime, timedelta]) -> None:
    rule, dtstart, offset = case
    schedule = _parse(rule, dtstart)
    instant = dtstart + offset
    assert schedule.next_after(instant) == _plain_after(rule, dtstart, instant)


@_SETTINGS
@given(rules())
def test_next_after_agrees_with_between_and_preview(case: tuple[str, datetime, timedelta]) -> None:
    rule, dtstart, offset = case
    schedule = _parse(rule, dtstart)
    start = dtstart + offset
    listed = preview(schedule, start, 8).occurrences
    chained, at = [], start
    for _ in range(8):
        at = schedule.next_after(at)
        if at is None:
            break
        chained.append(at)
    assert listed == chained
    assert all(a < b for a, b in pairwise(chained))
    if chained:
        tick = timedelta(microseconds=1)  # between() includes its start; next_after excludes it
        assert schedule.between(start + tick, chained[-1] + tick) == chained


@_SETTINGS
@given(rules(), st.integers(0, 5))
def test_exdates_never_returned(case: tuple[str, datetime, timedelta], skip: int) -> None:
    rule, dtstart, offset = case
    plain = _parse(rule, dtstart)
    start = dtstart + offset
    first = preview(plain, start, 6).occurrences
    if len(first) <= skip:
        reject()
    excluded = first[skip]
    schedule = _parse(rule, dtstart, f"EXDATE:{excluded.astimezone(UTC):%Y%m%dT%H%M%SZ} ")
    got = preview(schedule, start, 6).occurrences
    assert excluded not in got
    assert got[:skip] == first[:skip]
