"""Plain-English text of RFC 5545 schedules, in the style of calendar tools and rrule.js.

The text is complete when `natural` reads it back to the same occurrences: every part of the
rule is put into words (BYSETPOS as "keeping only the last of each month", BYWEEKNO as "in
week 20", DTSTART as "starting ..." wherever the series depends on it). What cannot be said
within the length limits is shown verbatim after the text, and the text is marked incomplete;
the property tests read every complete text back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time
from typing import TYPE_CHECKING

from dateutil import rrule as du

from engine.recurrence import wording as w
from engine.recurrence.phrase import Phrase, Sentence, phrase_of
from engine.recurrence.schedule import Description
from engine.recurrence.wall_rule import EndsBy, WallRule

if TYPE_CHECKING:
    from engine.recurrence.recurrence import Recurrence

_WEEKDAYS = (0, 1, 2, 3, 4)
_WEEKEND = (5, 6)
_UNIT_S = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}
_MAX_TIMES = 12


@dataclass
class Words:
    """A text being written, and the parts it could not put into words."""

    parts: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)

    def text(self) -> str:
        return " ".join(self.parts)


def describe_recurrence(recurrence: Recurrence) -> Description:
    """All rules joined by '; and', the dates added or removed, the start, and the zone."""
    sentence = sentence_of(recurrence)
    words = Words()
    rules = []
    for phrase in sentence.rules:
        rule_words = Words(left_out=words.left_out)
        describe_phrase(phrase, rule_words, sentence.start)
        rules.append(rule_words.text())
    words.add("; and ".join(rules))
    _dates(words, "except on", sentence.exdates, "EXDATE")
    _dates(words, "and also on", sentence.rdates, "RDATE")
    if sentence.start is not None:
        words.parts[-1] += ","
        words.add(f"starting {w.date_time(sentence.start)}")
    words.add(w.zone_phrase(recurrence.zone_name))
    if words.left_out:
        words.add(w.verbatim(words.left_out))
    return Description(words.text(), not words.left_out)


def sentence_of(recurrence: Recurrence) -> Sentence:
    """The recurrence's parts as English names them (EXDATE/RDATE that change something)."""
    phrases = tuple(_phrase(rule) for rule in recurrence.rules)
    starts = {rule.dtstart for rule in recurrence.rules}
    needs_start = recurrence.has_dtstart or any(_needs_start(rule) for rule in recurrence.rules)
    start = min(starts) if needs_start and starts else None
    matched = [x for x in sorted(recurrence.exdates) if _occurs(recurrence, x)]
    extra = [x for x in recurrence.rdates if not any(_walls_at(r, x) for r in recurrence.rules)]
    extra = [x for x in extra if x not in recurrence.exdates]
    return Sentence(phrases, start, None, tuple(extra), tuple(matched))


def describe_phrase(phrase: Phrase, words: Words, start: datetime | None = None) -> None:
    """One rule: frequency, days, months, times, BYSETPOS, week start and end. `start` is the
    DTSTART the text states (a second left unsaid defaults to its second)."""
    words.add(_frequency(phrase))
    if phrase.freq >= du.HOURLY:
        _sub_daily(phrase, words, start.second if start else 0)
    else:
        words.add(_days(phrase, words))
        words.add(_months(phrase))
        words.add(_times(phrase, words))
    if phrase.setpos and not _is_nth_weekday(phrase):
        kept = w.join([w.nth_word(p) for p in phrase.setpos])
        words.parts[-1] += ","
        words.add(f"keeping only the {kept} of each {w.UNITS[phrase.freq][0]}")
    if phrase.wkst:
        words.parts[-1] += ","
        words.add(f"with weeks starting on {w.WEEKDAY_NAMES[phrase.wkst]}")
    if phrase.count is not None:
        words.add(f"for {phrase.count} time" + ("" if phrase.count == 1 else "s"))
    elif phrase.until is not None:
        words.add(f"until {_until(phrase.until)}")


def _phrase(rule: WallRule) -> Phrase:
    until = rule.end if rule.ends_by is EndsBy.UNTIL else None
    return phrase_of(rule.kwargs, rule.count if rule.ends_by is EndsBy.COUNT else None, until)


def _needs_start(rule: WallRule) -> bool:
    """Whether the rule's dates depend on DTSTART beyond its first one: COUNT, or an INTERVAL
    whose grid is not the same every day (written without DTSTART, a sub-daily grid starts at
    midnight, so then it is)."""
    interval = rule.kwargs["interval"]
    if rule.ends_by is EndsBy.COUNT:
        return True
    if rule.kwargs["freq"] < du.HOURLY:
        return interval > 1
    return 86_400 % (_UNIT_S[rule.kwargs["freq"]] * interval) != 0


def _frequency(phrase: Phrase) -> str:
    simple = phrase.interval == 1 and not (phrase.setpos or phrase.monthdays or phrase.nth_weekdays)
    if phrase.freq in (du.WEEKLY, du.DAILY) and simple and phrase.weekdays == _WEEKDAYS:
        return w.EVERY_WEEKDAY
    if phrase.freq in (du.WEEKLY, du.DAILY) and simple and phrase.weekdays == _WEEKEND:
        return w.EVERY_WEEKEND
    text = w.plural(phrase.interval, w.UNITS[phrase.freq])
    return f"{text} {w.BY_THE_CLOCK}" if phrase.freq >= du.HOURLY and phrase.interval > 1 else text


def _days(phrase: Phrase, words: Words) -> str:
    """'on Monday and Thursday', 'on the last weekday', 'on Friday the 13th', 'on the 1st'."""
    if w.EVERY_WEEKDAY in words.parts or w.EVERY_WEEKEND in words.parts:
        plain = []
    elif len(phrase.weekdays) == 7:
        plain = ["every day of the week"]
    else:
        plain = [w.WEEKDAY_NAMES[d] for d in phrase.weekdays]
    if _is_nth_weekday(phrase):
        return f"on the {w.nth_word(phrase.setpos[0])} weekday"
    named = plain + [f"the {w.nth_word(n)} {w.WEEKDAY_NAMES[d]}" for n, d in phrase.nth_weekdays]
    named = _bounded(named, words, "BYDAY")
    monthdays = _bounded(w.ranged(phrase.monthdays, _monthday), words, "BYMONTHDAY")
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
    return f"on {w.join(_bounded(named, words, 'BYYEARDAY'))} of the year"


def _weeks(phrase: Phrase) -> str:
    if not phrase.weeks:
        return ""
    named = [f"week {n}" if n > 0 else f"the {w.nth_word(n)} week" for n in phrase.weeks]
    return f"in {w.join(named)} of the year"


def _is_nth_weekday(phrase: Phrase) -> bool:
    """MONTHLY or YEARLY weekdays with one BYSETPOS and one time: 'on the last weekday'."""
    return (
        phrase.freq in (du.MONTHLY, du.YEARLY)
        and phrase.weekdays == _WEEKDAYS
        and len(phrase.setpos) == 1
        and not (phrase.nth_weekdays or phrase.monthdays or phrase.yeardays or phrase.weeks)
        and len(phrase.hours) * len(phrase.minutes) * len(phrase.seconds) == 1
    )


def _is_yearly_date(phrase: Phrase) -> bool:
    """YEARLY with months and one day of month: said as 'on January 1 and July 1'."""
    plain = not (phrase.weekdays or phrase.nth_weekdays or phrase.yeardays or phrase.weeks)
    one_day = len(phrase.monthdays) == 1 and phrase.monthdays[0] > 0
    return phrase.freq == du.YEARLY and bool(phrase.months) and one_day and plain


def _months(phrase: Phrase) -> str:
    if _is_yearly_date(phrase):
        day = phrase.monthdays[0]
        return "on " + w.join([f"{w.MONTH_NAMES[m - 1]} {day}" for m in phrase.months])
    if not phrase.months:
        return ""
    return "in " + w.join(w.ranged(phrase.months, lambda m: w.MONTH_NAMES[m - 1]))


def _times(phrase: Phrase, words: Words) -> str:
    """'at 9:00 and 17:00', or for many: 'at :00, :20 and :40 past the hours 9 through 16'."""
    hours, minutes, seconds = phrase.hours, phrase.minutes, phrase.seconds
    if len(hours) * len(minutes) * len(seconds) <= _MAX_TIMES:
        return "at " + w.join([w.clock(h, m, s) for h in hours for m in minutes for s in seconds])
    within = [_past(m, s) for m in minutes for s in seconds]
    if len(within) > _MAX_TIMES:
        within = _bounded(within, words, "BYMINUTE/BYSECOND", limit=_MAX_TIMES)
    return f"at {w.join(within)} past the hours {w.join(w.ranged(hours, str))}"


def _sub_daily(phrase: Phrase, words: Words, default_second: int) -> None:
    """Hourly and finer: minutes of each hour, seconds, and the hours (minutes, seconds) kept."""
    if phrase.freq == du.HOURLY:
        within = [_past(m, s) for m in phrase.minutes for s in phrase.seconds]
        words.add("at " + w.join(_bounded(within, words, "BYMINUTE/BYSECOND", _MAX_TIMES)))
    elif phrase.freq == du.MINUTELY and phrase.seconds != (default_second,):
        words.add("at second " + w.join([str(s) for s in phrase.seconds]))
    for name, values, level in (
        ("hours", phrase.hours, du.HOURLY),
        ("minutes", phrase.minutes, du.MINUTELY),
        ("seconds", phrase.seconds, du.SECONDLY),
    ):
        if values and phrase.freq >= level:
            words.add(f"during the {name} {w.join(w.ranged(values, str))}")
    words.add(_days(phrase, words))
    words.add(_months(phrase))


def _past(minute: int, second: int) -> str:
    return f":{minute:02d}" + (f":{second:02d}" if second else "")


def _until(wall: datetime) -> str:
    if wall.time() == time(23, 59, 59):
        return w.long_date(wall)
    return f"{w.long_date(wall)} at {w.clock(wall.hour, wall.minute, wall.second)}"


def _bounded(items: list[str], words: Words, part: str, limit: int = w.MAX_LISTED) -> list[str]:
    """`items`, or when there are too many the first few and a count (the text incomplete)."""
    if len(items) <= limit:
        return items
    words.left_out.append(f"{part} lists {len(items)} values")
    return [*items[: limit // 2], f"{len(items) - limit // 2} more"]


def _dates(words: Words, lead: str, walls: tuple[datetime, ...], part: str) -> None:
    if not walls:
        return
    named = [w.long_date(x) + f" at {w.clock(x.hour, x.minute, x.second)}" for x in walls]
    if len(named) > w.MAX_DATES_NAMED:
        words.left_out.append(f"{part} lists {len(named)} dates")
        named = [f"{len(named)} dates"]
    words.parts[-1] += ","
    words.add(f"{lead} {w.join(named)}")


def _occurs(recurrence: Recurrence, wall: datetime) -> bool:
    return wall in recurrence.rdates or any(_walls_at(rule, wall) for rule in recurrence.rules)


def _walls_at(rule: WallRule, wall: datetime) -> bool:
    return next(rule.walls_from(wall), None) == wall
