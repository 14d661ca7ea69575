"""The day and month words of an RRULE's text: 'on Monday and Thursday', 'on the last
weekday', 'on Friday the 13th', 'on the 1st and 15th', 'in week 20', 'on January 1'."""

from __future__ import annotations

from dateutil import rrule as du

from engine.recurrence import wording as w
from engine.recurrence.phrase import Phrase
from engine.recurrence.words import Words, bounded

WEEKDAYS = (0, 1, 2, 3, 4)
WEEKEND = (5, 6)


def days_words(phrase: Phrase, words: Words) -> str:
    """'on Monday and Thursday', 'on the last weekday', 'on Friday the 13th', 'on the 1st'."""
    if w.EVERY_WEEKDAY in words.parts or w.EVERY_WEEKEND in words.parts:
        plain = []
    elif len(phrase.weekdays) == 7:
        plain = ["every day of the week"]
    else:
        plain = [w.WEEKDAY_NAMES[d] for d in phrase.weekdays]
    if is_nth_weekday(phrase):
        return f"on the {w.nth_word(phrase.setpos[0])} weekday"
    named = plain + [f"the {w.nth_word(n)} {w.WEEKDAY_NAMES[d]}" for n, d in phrase.nth_weekdays]
    named = bounded(named, words, "BYDAY")
    monthdays = bounded(w.ranged(phrase.monthdays, _monthday), words, "BYMONTHDAY")
    parts = []
    single = len(phrase.weekdays) == 1 and not phrase.nth_weekdays and len(named) == 1
    if single and len(phrase.monthdays) == 1 and phrase.monthdays[0] > 0:
        parts.append(f"on {named[0]} the {w.ordinal(phrase.monthdays[0])}")
    elif named and monthdays:
        parts.append(f"on {w.join(named)} when it is {w.join(monthdays)}")
    elif named:
        parts.append(f"on {w.join(named)}")
    elif monthdays and not _is_yearly_date(phrase):
        parts.append(f"on {w.join(monthdays)}")
    parts.append(_yeardays(phrase, words))
    parts.append(_weeks(phrase))
    return " ".join(part for part in parts if part)


def _monthday(day: int) -> str:
    if day > 0:
        return f"the {w.ordinal(day)}"
    return "the last day" if day == -1 else f"the {w.nth_word(day)} day"


def _yeardays(phrase: Phrase, words: Words) -> str:
    if not phrase.yeardays:
        return ""
    named = [f"day {d}" if d > 0 else _monthday(d) for d in phrase.yeardays]
    return f"on {w.join(bounded(named, words, 'BYYEARDAY'))} of the year"


def _weeks(phrase: Phrase) -> str:
    if not phrase.weeks:
        return ""
    named = [f"week {n}" if n > 0 else f"the {w.nth_word(n)} week" for n in phrase.weeks]
    return f"in {w.join(named)} of the year"


def is_nth_weekday(phrase: Phrase) -> bool:
    """MONTHLY or YEARLY weekdays with one BYSETPOS and one time: 'on the last weekday'."""
    return (
        phrase.freq in (du.MONTHLY, du.YEARLY)
        and phrase.weekdays == WEEKDAYS
        and len(phrase.setpos) == 1
        and not (phrase.nth_weekdays or phrase.monthdays or phrase.yeardays or phrase.weeks)
        and len(phrase.hours) * len(phrase.minutes) * len(phrase.seconds) == 1
    )


def _is_yearly_date(phrase: Phrase) -> bool:
    """YEARLY with months and one day of month: said as 'on January 1 and July 1'."""
    plain = not (phrase.weekdays or phrase.nth_weekdays or phrase.yeardays or phrase.weeks)
    one_day = len(phrase.monthdays) == 1 and phrase.monthdays[0] > 0
    return phrase.freq == du.YEARLY and bool(phrase.months) and one_day and plain


def months_words(phrase: Phrase) -> str:
    if _is_yearly_date(phrase):
        day = phrase.monthdays[0]
        return "on " + w.join([f"{w.MONTH_NAMES[m - 1]} {day}" for m in phrase.months])
    if not phrase.months:
        return ""
    return "in " + w.join(w.ranged(phrase.months, lambda m: w.MONTH_NAMES[m - 1]))
