"""English input is unambiguous or refused: the rrule.js phrasings read as their RRULEs,
repeated or contradicting phrases are refused with both named, acceptance never depends on the
time of reading, and elapsed intervals are worded (and behave) unlike calendar rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import islice
from random import Random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedule_strategies import random_english

from engine.recurrence import InvalidSchedule, parse_schedule, preview

_ANCHOR = datetime(2026, 1, 5, 8, tzinfo=UTC)

#: rrule.js's own test pairs (test/nlp.test.ts), English and the RRULE it means.
RRULE_JS = [
    ("Every day", "RRULE:FREQ=DAILY"),
    ("Every day at 10, 12 and 17", "RRULE:FREQ=DAILY;BYHOUR=10,12,17"),
    ("Every week on Sunday at 10, 12 and 17", "RRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=10,12,17"),
    ("Every week", "RRULE:FREQ=WEEKLY"),
    ("Every hour", "RRULE:FREQ=HOURLY"),
    ("Every 4 hours by the clock", "RRULE:INTERVAL=4;FREQ=HOURLY"),
    ("Every week on Tuesday", "RRULE:FREQ=WEEKLY;BYDAY=TU"),
    ("Every week on Monday, Wednesday", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE"),
    ("Every weekday", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
    ("Every 2 weeks", "RRULE:INTERVAL=2;FREQ=WEEKLY"),
    ("Every month", "RRULE:FREQ=MONTHLY"),
    ("Every 6 months", "RRULE:INTERVAL=6;FREQ=MONTHLY"),
    ("Every year", "RRULE:FREQ=YEARLY"),
    ("Every year on the 1st Friday", "RRULE:FREQ=YEARLY;BYDAY=+1FR"),
    ("Every year on the 13th Friday", "RRULE:FREQ=YEARLY;BYDAY=+13FR"),
    ("Every month on the 4th", "RRULE:FREQ=MONTHLY;BYMONTHDAY=4"),
    ("Every month on the 4th last", "RRULE:FREQ=MONTHLY;BYMONTHDAY=-4"),
    ("Every month on the 3rd Tuesday", "RRULE:FREQ=MONTHLY;BYDAY=+3TU"),
    ("Every month on the 3rd last Tuesday", "RRULE:FREQ=MONTHLY;BYDAY=-3TU"),
    ("Every month on the last Monday", "RRULE:FREQ=MONTHLY;BYDAY=-1MO"),
    ("Every month on the 2nd last Friday", "RRULE:FREQ=MONTHLY;BYDAY=-2FR"),
    ("Every week until January 1, 2027", "RRULE:FREQ=WEEKLY;UNTIL=20270101T235959Z"),
    ("Every week for 20 times", "RRULE:FREQ=WEEKLY;COUNT=20"),
    ("Every minute", "RRULE:FREQ=MINUTELY"),
    ("Every 2 minutes by the clock", "RRULE:FREQ=MINUTELY;INTERVAL=2"),
]


def _next(text: str, count: int = 30) -> list[datetime]:
    schedule = parse_schedule(text, "UTC", anchor=_ANCHOR)
    return [o.at for o in islice(schedule.occurrences_after(_ANCHOR - timedelta(days=1)), count)]


@pytest.mark.parametrize(("english", "rule"), RRULE_JS, ids=[p[0] for p in RRULE_JS])
def test_rrule_js_phrase_means_its_rrule(english: str, rule: str) -> None:
    assert _next(english) == _next(rule)
    description = parse_schedule(rule, "UTC", anchor=_ANCHOR).describe()
    assert description.complete
    assert _next(description.text) == _next(rule)


REFUSED = [
    # (text, what the one-line error must say)
    ("every monday every tuesday", "'every monday' and 'every tuesday' both give how often"),
    ("every day at 9am at 5pm", "'at 9am' and 'at 5pm' both give the times of day"),
    ("every monday on tuesday", "'every monday' and 'on tuesday' both give the days of the week"),
    ("every 2 hours at 9am", "'at 9am' does not fit 'every 2 hours'"),
    ("every day at :15", "'at :15' does not fit 'every day'"),
    ("every hour at 9:00", "'at 9:00' does not fit 'every hour'"),
    ("every day at 9:00 and 17:30", "every listed hour must run at every listed minute"),
    ("every week for 3 times until march 1, 2027", "already ends it: give one"),
    ("every day keeping only the first of each month", "repeats every day, not every month"),
    ("every 90 minutes of elapsed time at 9am", "an elapsed interval has no days or times"),
    ("every fortnight", "not understood"),
    ("at 25:00", "not a valid time or date"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_ambiguous_english_is_refused_naming_the_phrases(text: str, message: str) -> None:
    with pytest.raises(InvalidSchedule) as caught:
        parse_schedule(text, "UTC", anchor=_ANCHOR)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.integers(0, 60 * 24 * 366), st.integers(0, 1439))
def test_acceptance_never_depends_on_the_time_of_reading(
    rnd: Random, minutes: int, other: int
) -> None:
    text = random_english(rnd)
    anchors = sorted((_ANCHOR + timedelta(minutes=minutes), _ANCHOR + timedelta(minutes=other)))
    verdicts = []
    for anchor in anchors:
        try:
            parse_schedule(text, "Europe/Berlin", anchor=anchor)
            verdicts.append("accepted")
        except InvalidSchedule as exc:
            verdicts.append(exc.reason)
    if verdicts[0] != verdicts[1] and "until" in text:
        # An end date can pass between two readings, never the other way round: only the
        # later reading may refuse, and only because the rule no longer occurs (each reading
        # anchors the rule at its own instant, so the two rules' dates may differ).
        assert verdicts[0] == "accepted" and "never occurs" in verdicts[1], (text, verdicts)
        return
    assert verdicts[0] == verdicts[1], text


@pytest.mark.parametrize("text", ["every 24h", "every 1 day", "every 24 hours", "every 90 minutes"])
def test_elapsed_interval_is_worded_as_elapsed_time(text: str) -> None:
    description = parse_schedule(text, "Europe/Berlin", anchor=_ANCHOR).describe()
    assert "of elapsed time" in description.text
    assert description.complete


def test_elapsed_day_drifts_at_dst_and_says_so_while_calendar_day_stays() -> None:
    anchor = datetime(2026, 3, 27, 8, tzinfo=UTC)  # 9:00 in Berlin, two days before the change
    elapsed = preview(parse_schedule("every 24h", "Europe/Berlin", anchor=anchor), anchor, 4)
    calendar = preview(parse_schedule("every day at 9", "Europe/Berlin", anchor=anchor), anchor, 4)
    assert [at.hour for at in elapsed.occurrences] == [9, 10, 10, 10]
    assert [at.hour for at in calendar.occurrences] == [9, 9, 9, 9]
    drift = "runs keep 1 day of elapsed time apart, so their local time moves at DST changes"
    assert any(drift in warning and "9:00 becomes 10:00" in warning for warning in elapsed.warnings)
    assert not any("elapsed" in warning for warning in calendar.warnings)
    assert calendar.text == "every day at 9:00 (Europe/Berlin)"


def test_text_names_its_zone_and_wins_over_the_given_one() -> None:
    text = "every day at 9:00 (America/New_York)"
    schedule = parse_schedule(text, "Europe/Berlin", anchor=_ANCHOR)
    assert schedule.timezone == "America/New_York"
    assert schedule.next_after(_ANCHOR) == datetime(2026, 1, 5, 14, tzinfo=UTC)


MEANT = [
    ("every other week on friday at 17:00", "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=17"),
    ("every weekday at 9am", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9"),
    ("on the last friday of every month at 18:00", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=18"),
    (
        "every month on the last weekday at 9",
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=9",
    ),
    (
        "every year on january 1 and july 1 at noon",
        "FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1;BYHOUR=12",
    ),
    ("every month on friday the 13th at 9", "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYHOUR=9"),
    (
        "at 09:30, monday through friday",
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=30",
    ),
    ("every hour at :15 and :45", "FREQ=HOURLY;BYMINUTE=15,45"),
    (
        "every 10 minutes by the clock, between 09:00 and 17:59",
        "FREQ=MINUTELY;INTERVAL=10;BYHOUR=9,10,11,12,13,14,15,16,17",
    ),
    ("every year in week 20 on monday at 9", "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;BYHOUR=9"),
]


@pytest.mark.parametrize(("text", "expected"), MEANT, ids=[m[0] for m in MEANT])
def test_english_reads_as_the_rule_people_mean(text: str, expected: str) -> None:
    assert _next(text, 40) == _next(expected, 40)
