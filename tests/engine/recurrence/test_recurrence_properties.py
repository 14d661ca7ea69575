"""Property tests: the fast `next_after` equals plain dateutil evaluation from DTSTART, and
next_after / between / preview agree, increase strictly, skip EXDATEs and terminate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr
from hypothesis import HealthCheck, example, given, reject, settings
from hypothesis import strategies as st

from engine.recurrence import DstGap, DstRepeat, InvalidSchedule, parse_schedule, preview

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


@st.composite
def rules(draw: st.DrawFn) -> tuple[str, datetime, timedelta]:
    """(RRULE text, DTSTART in UTC, how far after DTSTART to query)."""
    freq = draw(st.sampled_from(["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"]))
    parts = [f"FREQ={freq}", f"INTERVAL={draw(st.integers(1, 5))}"]
    if draw(st.booleans()):
        parts.append("BYDAY=" + ",".join(draw(st.sets(_byday(freq), min_size=1, max_size=3))))
    numbered = any("BYDAY=" in p and p[-3] in "0123456789" for p in parts)
    if freq == "YEARLY" and not numbered and draw(st.booleans()):
        weeks = draw(st.sets(st.integers(1, 53) | st.integers(-53, -1), min_size=1, max_size=3))
        parts.append("BYWEEKNO=" + ",".join(map(str, sorted(weeks))))
    if freq in ("YEARLY", "HOURLY") and draw(st.integers(0, 3)) == 0:
        yeardays = draw(
            st.sets(st.integers(1, 366) | st.integers(-366, -1), min_size=1, max_size=3)
        )
        parts.append("BYYEARDAY=" + ",".join(map(str, sorted(yeardays))))
    if draw(st.integers(0, 3)) == 0:
        parts.append(f"WKST={draw(st.sampled_from(_DAYS))}")
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
        freq in ("MONTHLY", "YEARLY", "WEEKLY", "DAILY")
        and any(p.startswith("BY") for p in parts)
        and draw(st.booleans())
    ):
        parts.append(f"BYSETPOS={draw(st.sampled_from([1, 2, 3, -1, -2, 7]))}")
    if draw(st.booleans()):
        parts.append(f"COUNT={draw(st.integers(1, 60))}")
    dtstart = draw(st.datetimes(datetime(2016, 1, 1), datetime(2026, 1, 1))).replace(
        microsecond=0, tzinfo=UTC
    )
    span_days = 20 if freq in ("HOURLY", "MINUTELY") else 900
    offset = draw(st.timedeltas(timedelta(0), timedelta(days=span_days)))
    return ";".join(parts), dtstart, offset


def _byday(freq: str) -> st.SearchStrategy[str]:
    """Plain weekdays, plus numbered ones (1MO, -1FR, 20MO) where RFC 5545 allows them."""
    plain = st.sampled_from(_DAYS)
    if freq not in ("MONTHLY", "YEARLY"):
        return plain
    limit = 5 if freq == "MONTHLY" else 53
    numbers = st.integers(1, limit) | st.integers(-limit, -1)
    return plain | st.builds(lambda n, d: f"{n}{d}", numbers, plain)


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
    found = plain.after(instant)
    return found if found is None or found <= cap else None  # COUNT is capped too


@_SETTINGS
@given(rules())
# dateutil's first WEEKLY period runs from DTSTART's day, not from WKST (BYSETPOS sees it)
@example(
    ("FREQ=WEEKLY;BYDAY=TU,MO;WKST=TU;BYSETPOS=1", datetime(2016, 1, 1, tzinfo=UTC), timedelta(0))
)
# a sparse sub-daily rule: walking day by day in dateutil would take seconds
@example(
    (
        "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=23;BYMINUTE=59",
        datetime(2024, 3, 1, tzinfo=UTC),
        timedelta(days=30),
    )
)
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


_ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Pacific/Apia",
    "Asia/Kolkata",
]


def _reference_next(
    rule: str, dtstart_wall: datetime, zone: str, gap: DstGap, repeat: DstRepeat, instant: datetime
) -> datetime | None:
    """Plain dateutil from DTSTART, each wall time mapped by the documented DST policy."""
    tz = ZoneInfo(zone)
    cap = dtstart_wall.replace(year=dtstart_wall.year + 10, day=min(dtstart_wall.day, 28))
    until = "" if "COUNT" in rule else f";UNTIL={cap:%Y%m%dT%H%M%S}"
    best: datetime | None = None
    for wall in rrulestr(f"DTSTART:{dtstart_wall:%Y%m%dT%H%M%S}\nRRULE:{rule}{until}"):
        if wall > cap:
            break
        first = wall.replace(tzinfo=tz).astimezone(UTC)
        exists = first.astimezone(tz).replace(tzinfo=None) == wall
        instants = [first] if exists or gap is DstGap.SHIFT else []
        if exists and repeat is DstRepeat.BOTH:
            instants.append(wall.replace(tzinfo=tz, fold=1).astimezone(UTC))
        for at in instants:
            if at > instant and (best is None or at < best):
                best = at
        if best is not None and first - timedelta(days=2) > best:
            break  # no later wall time can map before the instant already found
    return best


@_SETTINGS
@given(
    rules(),
    st.sampled_from(_ZONES),
    st.sampled_from(list(DstGap)),
    st.sampled_from(list(DstRepeat)),
)
def test_dst_policies_match_reference_in_real_zones(
    case: tuple[str, datetime, timedelta], zone: str, gap: DstGap, repeat: DstRepeat
) -> None:
    rule, dtstart, offset = case
    wall = dtstart.replace(tzinfo=None)
    text = f"DTSTART;TZID={zone}:{wall:%Y%m%dT%H%M%S} RRULE:{rule}"
    try:
        schedule = parse_schedule(text, "UTC", dst_gap=gap, dst_repeat=repeat)
    except InvalidSchedule:
        reject()
    instant = dtstart + offset
    got = schedule.next_after(instant)
    expected = _reference_next(rule, wall, zone, gap, repeat, instant)
    assert (got.astimezone(UTC) if got else None) == expected
