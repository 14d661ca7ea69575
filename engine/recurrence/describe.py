"""Plain-English text of RFC 5545 schedules, in the style of calendar tools and rrule.js.

The text is complete when `natural` reads it back to the same occurrences: every part of the
rule is put into words (BYSETPOS as "keeping only the last of each month", BYWEEKNO as "in
week 20", DTSTART as "starting ..." wherever the series depends on it). What cannot be said
within the length limits is shown verbatim after the text, and the text is marked incomplete;
the property tests read every complete text back.
"""

from __future__ import annotations

from datetime import datetime, time

from dateutil import rrule as du

from engine.recurrence import wording as w
from engine.recurrence.describe_days import (
    WEEKDAYS,
    WEEKEND,
    days_words,
    is_nth_weekday,
    months_words,
)
from engine.recurrence.parts import RecurrenceParts
from engine.recurrence.phrase import Phrase, Sentence, phrase_of
from engine.recurrence.schedule import Description
from engine.recurrence.wall_rule import EndsBy, WallRule
from engine.recurrence.words import Words, bounded

_UNIT_S = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}
_MAX_TIMES = 12


def describe_recurrence(recurrence: RecurrenceParts) -> Description:
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
    _dates(words, "and also on" if rules else "on", sentence.rdates, "RDATE")
    if sentence.start is not None and sentence.rules:
        words.parts[-1] += ","
        words.add(f"starting {w.date_time(sentence.start)}")
    words.add(w.zone_phrase(recurrence.zone_name))
    if words.left_out:
        words.add(w.verbatim(words.left_out))
    return Description(words.text(), not words.left_out)


def sentence_of(recurrence: RecurrenceParts) -> Sentence:
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
        words.add(days_words(phrase, words))
        words.add(months_words(phrase))
        words.add(_times(phrase, words))
    if phrase.setpos and not is_nth_weekday(phrase):
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
    if phrase.freq in (du.WEEKLY, du.DAILY) and simple and phrase.weekdays == WEEKDAYS:
        return w.EVERY_WEEKDAY
    if phrase.freq in (du.WEEKLY, du.DAILY) and simple and phrase.weekdays == WEEKEND:
        return w.EVERY_WEEKEND
    text = w.plural(phrase.interval, w.UNITS[phrase.freq])
    return f"{text} {w.BY_THE_CLOCK}" if phrase.freq >= du.HOURLY and phrase.interval > 1 else text


def _times(phrase: Phrase, words: Words) -> str:
    """'at 9:00 and 17:00', or for many: 'at :00, :20 and :40 past the hours 9 through 16'."""
    hours, minutes, seconds = phrase.hours, phrase.minutes, phrase.seconds
    if len(hours) * len(minutes) * len(seconds) <= _MAX_TIMES:
        return "at " + w.join([w.clock(h, m, s) for h in hours for m in minutes for s in seconds])
    within = [_past(m, s) for m in minutes for s in seconds]
    if len(within) > _MAX_TIMES:
        within = bounded(within, words, "BYMINUTE/BYSECOND", limit=_MAX_TIMES)
    return f"at {w.join(within)} past the hours {w.join(w.ranged(hours, str))}"


def _sub_daily(phrase: Phrase, words: Words, default_second: int) -> None:
    """Hourly and finer: minutes of each hour, seconds, and the hours (minutes, seconds) kept."""
    if phrase.freq == du.HOURLY:
        within = [_past(m, s) for m in phrase.minutes for s in phrase.seconds]
        words.add("at " + w.join(bounded(within, words, "BYMINUTE/BYSECOND", _MAX_TIMES)))
    elif phrase.freq == du.MINUTELY and (phrase.seconds != (default_second,) or phrase.setpos):
        words.add("at second " + w.join([str(s) for s in phrase.seconds]))
    for name, values, level in (
        ("hours", phrase.hours, du.HOURLY),
        ("minutes", phrase.minutes, du.MINUTELY),
        ("seconds", phrase.seconds, du.SECONDLY),
    ):
        if values and phrase.freq >= level:
            words.add(f"during the {name} {w.join(w.ranged(values, str))}")
    words.add(days_words(phrase, words))
    words.add(months_words(phrase))


def _past(minute: int, second: int) -> str:
    return f":{minute:02d}" + (f":{second:02d}" if second else "")


def _until(wall: datetime) -> str:
    if wall.time() == time(23, 59, 59):
        return w.long_date(wall)
    return f"{w.long_date(wall)} at {w.clock(wall.hour, wall.minute, wall.second)}"


def _dates(words: Words, lead: str, walls: tuple[datetime, ...], part: str) -> None:
    if not walls:
        return
    named = [w.long_date(x) + f" at {w.clock(x.hour, x.minute, x.second)}" for x in walls]
    if len(named) > w.MAX_DATES_NAMED:
        words.left_out.append(f"{part} lists {len(named)} dates")
        named = [f"{len(named)} dates"]
    if words.parts:
        words.parts[-1] += ","
    words.add(f"{lead} {w.join(named)}")


def _occurs(recurrence: RecurrenceParts, wall: datetime) -> bool:
    return wall in recurrence.rdates or any(_walls_at(rule, wall) for rule in recurrence.rules)


def _walls_at(rule: WallRule, wall: datetime) -> bool:
    return next(rule.walls_from(wall), None) == wall
