"""Cron as people write it, and the warnings and notes a preview gives: each true, each bounded.

Warnings name what really happens: an EXDATE or RDATE that changes nothing, an UNTIL that cuts
the last day's run, a one-shot inside a DST gap or a repeated hour, a day of month that only
some months have. Texts stay short whatever the input, and errors quote at most ~80
characters of the bad part.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.recurrence import DstGap, DstRepeat, InvalidSchedule, parse_schedule, preview

_ANCHOR = datetime(2026, 1, 5, 8, tzinfo=UTC)

CRON = [
    # (expression, local wall times of the first runs after the anchor, Europe/Berlin)
    ("0 9 * * MON-FRI", ["2026-01-06 09:00", "2026-01-07 09:00", "2026-01-08 09:00"]),
    ("0 12 * JAN,JUL *", ["2026-01-05 12:00", "2026-01-06 12:00", "2026-01-07 12:00"]),
    ("*/10 9-17 * * MON-FRI", ["2026-01-05 09:10", "2026-01-05 09:20", "2026-01-05 09:30"]),
    ("0 9 L * *", ["2026-01-31 09:00", "2026-02-28 09:00", "2026-03-31 09:00"]),
    ("0 9 15W * *", ["2026-01-15 09:00", "2026-02-16 09:00", "2026-03-16 09:00"]),
    ("0 9 * * FRI#2", ["2026-01-09 09:00", "2026-02-13 09:00", "2026-03-13 09:00"]),
    ("0 9 * * fri-mon", ["2026-01-09 09:00", "2026-01-10 09:00", "2026-01-11 09:00"]),
    ("*/45 * * * *", ["2026-01-05 09:45", "2026-01-05 10:00", "2026-01-05 10:45"]),
]


@pytest.mark.parametrize(("expression", "walls"), CRON, ids=[c[0] for c in CRON])
def test_cron_as_people_write_it(expression: str, walls: list[str]) -> None:
    schedule = parse_schedule(expression, "Europe/Berlin", anchor=_ANCHOR)
    got = preview(schedule, _ANCHOR, len(walls)).occurrences
    assert [f"{at:%Y-%m-%d %H:%M}" for at in got] == walls


def test_one_shot_in_a_gap_shifts_and_is_noted() -> None:
    schedule = parse_schedule("2027-03-28T02:30:00", "Europe/Berlin", anchor=_ANCHOR)
    result = preview(schedule, _ANCHOR, 3)
    assert [at.isoformat() for at in result.occurrences] == ["2027-03-28T03:30:00+02:00"]
    assert [n.note for n in result.notes] == ["2027-03-28 02:30 -> 03:30 (DST gap)"]
    assert result.text == "once, on March 28, 2027 at 3:30 (Europe/Berlin)"


def test_one_shot_in_a_gap_with_skip_is_refused() -> None:
    with pytest.raises(InvalidSchedule, match="does not exist in Europe/Berlin"):
        parse_schedule("2027-03-28T02:30:00", "Europe/Berlin", dst_gap=DstGap.SKIP)


def test_one_shot_in_a_repeated_hour_runs_as_rules_do() -> None:
    first = preview(parse_schedule("2027-10-31T02:30:00", "Europe/Berlin", anchor=_ANCHOR), _ANCHOR)
    assert [at.isoformat() for at in first.occurrences] == ["2027-10-31T02:30:00+02:00"]
    assert "runs at the first" in first.notes[0].note  # type: ignore[operator]
    both = parse_schedule(
        "2027-10-31T02:30:00", "Europe/Berlin", anchor=_ANCHOR, dst_repeat=DstRepeat.BOTH
    )
    result = preview(both, _ANCHOR)
    assert len(result.occurrences) == 2
    assert result.text.startswith("twice, on October 31, 2027 at 2:30")


def test_exdate_that_matches_nothing_is_named() -> None:
    text = "DTSTART:20260101T090000Z RRULE:FREQ=DAILY EXDATE:20260105T100000Z"
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 3)
    assert "EXDATE 2026-01-05 10:00 matches no occurrence: it changes nothing" in result.warnings
    assert "except" not in result.text


def test_exdate_that_matches_is_named_in_the_text_and_ends_skips_it() -> None:
    text = "DTSTART:20260101T090000Z RRULE:FREQ=DAILY;COUNT=3 EXDATE:20260103T090000Z"
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), datetime(2025, 12, 1, tzinfo=UTC))
    assert "except on January 3, 2026 at 9:00" in result.text
    assert result.ends == datetime(2026, 1, 2, 9, tzinfo=UTC)
    assert not any("EXDATE" in warning for warning in result.warnings)


def test_rdate_that_is_already_an_occurrence_is_named() -> None:
    text = "DTSTART:20260101T090000Z RRULE:FREQ=DAILY RDATE:20260106T090000Z,20260106T120000Z"
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 10)
    assert "RDATE 2026-01-06 09:00 is already an occurrence: it changes nothing" in result.warnings
    assert "and also on January 6, 2026 at 12:00" in result.text


def test_until_that_cuts_the_last_days_run_is_named() -> None:
    text = "DTSTART:20260101T090000Z RRULE:FREQ=DAILY;UNTIL=20260110T080000Z"
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 10)
    warning = "UNTIL 2026-01-10 08:00 comes before that day's run at 09:00"
    assert any(w.startswith(warning) for w in result.warnings)
    assert result.ends == datetime(2026, 1, 9, 9, tzinfo=UTC)


def test_until_at_the_end_of_the_day_warns_nothing() -> None:
    text = "DTSTART:20260101T090000Z RRULE:FREQ=DAILY;UNTIL=20260110"
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 10)
    assert result.warnings == []
    assert "until January 10, 2026," in result.text


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "runs only in leap years (February 29)"),
        ("FREQ=MONTHLY;BYMONTHDAY=31", "skips months without a 31st day"),
    ],
)
def test_missing_day_warning_is_true(text: str, warning: str) -> None:
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 3)
    assert warning in result.warnings
    assert len([w for w in result.warnings if "months" in w or "leap" in w]) == 1


@pytest.mark.parametrize("text", ["FREQ=MONTHLY;BYMONTHDAY=29,1", "FREQ=MONTHLY;BYMONTHDAY=-1"])
def test_no_missing_day_warning_when_no_month_is_skipped(text: str) -> None:
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 3)
    assert not any("skips" in warning for warning in result.warnings)


def test_long_lists_are_deduplicated_and_the_text_stays_short() -> None:
    text = "FREQ=MONTHLY;BYMONTHDAY=" + ",".join(str(i % 31 + 1) for i in range(3000))
    result = preview(parse_schedule(text, "UTC", anchor=_ANCHOR), _ANCHOR, 3)
    assert result.text == "every month on the 1st through the 31st at 8:00 (UTC)"


def test_long_yearday_list_is_summarised_and_marked_incomplete() -> None:
    text = "FREQ=YEARLY;BYYEARDAY=" + ",".join(str(day) for day in range(1, 366, 3))
    description = parse_schedule(text, "UTC", anchor=_ANCHOR).describe()
    assert len(description.text) < 400
    assert not description.complete
    assert "BYYEARDAY lists 122 values" in description.text


@pytest.mark.parametrize(
    "text",
    [
        "FREQ=DAILY;BYHOUR=" + "9" * 10_000,
        "FREQ=" + "X" * 10_000,
        "every day at " + "9" * 10_000,
        "DTSTART:" + "1" * 10_000 + " RRULE:FREQ=DAILY",
        "0 " + "9" * 10_000 + " * * *",
    ],
)
def test_error_quotes_at_most_80_characters_of_the_bad_token(text: str) -> None:
    with pytest.raises(InvalidSchedule) as caught:
        parse_schedule(text, "UTC", anchor=_ANCHOR)
    assert len(str(caught.value)) < 400
    assert "9" * 81 not in str(caught.value) and "X" * 81 not in str(caught.value)
