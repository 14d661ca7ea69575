"""English schedules: "every weekday at 9am", "on the last Friday of every month at 18:00",
"every 90 minutes", and every text `describe` writes.

Each phrase fills one part of the schedule. A part given twice ("every monday every tuesday",
"at 9am at 5pm") or phrases that contradict each other ("every 2 hours at 9am": a time of day
for a rule that runs many times a day) are refused with both phrases named, never resolved by
a guess, and nothing depends on the time the text is read at. "every N minutes" (or seconds,
hours, days) alone is elapsed time, like `every 15m`; with days, hours or "by the clock" it is a
calendar rule on the wall clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from engine.recurrence import english_terms as t
from engine.recurrence.draft import Draft
from engine.recurrence.english_days import read_on
from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.phrase import Elapsed, OnceAt, Sentence

_HINT = "write e.g. 'every weekday at 9am', 'every month on the last Friday at 18:00' or an RRULE"
_UNIT = r"(year|month|week|day|hour|minute|second)s?\b"
_PAST = r":\d{2}(?::\d{2})?"
_NUMBERS = t.listed(r"\d{1,2}")
_WEEK = t.listed(rf"(?:(?:week )?\d{{1,2}}|the {t.NTH} week)")
_PHRASES: tuple[tuple[str, str], ...] = (
    ("weekday", r"every weekday\b|on weekdays\b"),
    ("weekend", r"every weekend\b|on weekends\b"),
    ("unit", rf"every (?:(\d{{1,9}}|other) )?{_UNIT}"),
    ("adverb", r"(daily|weekly|monthly|yearly|annually|hourly)\b"),
    ("every_days", rf"every ({t.listed(t.WD)})"),
    ("nth_weekday", rf"on the ({t.NTH}) weekday\b"),
    ("dates", rf"on ({t.MON} \d{{1,2}}(?:{t.SEP}{t.MON} \d{{1,2}})*)(?!\d|,? \d{{4}})"),
    ("on_datetimes", rf"on ({t.listed(t.DATE_TIME)})(?=$|[,;]| \()"),
    ("on_days", ""),
    ("weeks", rf"in (?:weeks? )?({_WEEK})(?: of the year)?"),
    ("months", rf"(?:in|of) ({t.listed(t.MON)})"),
    ("bare_days", rf"({t.WD} (?:through|to) {t.WD})"),
    ("bare_months", rf"({t.MON} (?:through|to) {t.MON})"),
    ("past", rf"at ({t.listed(_PAST)}) past the hours ({_NUMBERS})"),
    ("within", rf"at ({t.listed(_PAST)})"),
    ("second_of_minute", rf"at seconds? ({_NUMBERS})"),
    ("times", rf"at ({t.listed(t.CLOCK)})"),
    ("filter", rf"during the (hours|minutes|seconds) ({_NUMBERS})"),
    ("between", r"between (\d{1,2}):00 and (\d{1,2}):59"),
    ("setpos", rf"keeping only the ({t.listed(t.NTH)}) of each {_UNIT}"),
    ("wkst", rf"with weeks starting on ({t.WD})"),
    ("start", rf"(?:starting|from) (?:on )?({t.DATE_TIME})"),
    ("until", rf"until ({t.DATE_TIME})"),
    ("count", r"(?:for )?(\d{1,9}) times?\b"),
    ("clock", r"by the clock\b"),
    ("elapsed", r"of elapsed time\b"),
    ("exdates", rf"except on ({t.listed(t.DATE_TIME)})"),
    ("rdates", rf"and also on ({t.listed(t.DATE_TIME)})"),
    ("every_month", r"of (?:every|each) (month|year)\b"),
    ("of_the", r"of the (?:month|year)\b"),
)
_COMPILED = tuple((name, re.compile(pattern)) for name, pattern in _PHRASES)


def read_english(text: str) -> Sentence | Elapsed | OnceAt:
    """What an English text says; InvalidSchedule naming the part not understood."""
    body, zone = _zone_suffix(text)
    rest = " ".join(body.lower().replace(" ,", ",").split()).rstrip(".")
    once = re.fullmatch(rf"(?:once|twice),? on ({t.DATE_TIME})", rest)
    if once is not None:
        return OnceAt(_value(text, once[1], t.day_time), zone)
    exact = re.fullmatch(r"once,? at (\d{4}-\d\d-\d\dt[\d:.]+(?:z|[+-]\d\d:\d\d))", rest)
    if exact is not None:
        return OnceAt(_value(text, exact[1], datetime.fromisoformat), zone)
    draft = Draft(text)
    while rest:
        rest = _next_phrase(text, draft, rest)
    return draft.finish(zone)


def _next_phrase(text: str, draft: Draft, rest: str) -> str:
    for name, pattern in _COMPILED:
        if name == "on_days":
            days = read_on(rest)
            if days is not None:
                draft.set_days(rest[: days[1]], days[0])
                return _strip(rest[days[1] :])
            continue
        match = pattern.match(rest)
        if match is not None and _ends_word(rest, match.end()):
            _apply(text, draft, name, match)
            return _strip(rest[match.end() :])
    position = len(text) - len(rest)
    raise InvalidSchedule(
        text, f"{quote(rest[:40])}: not understood", position=max(0, position), hint=_HINT
    )


def _apply(text: str, draft: Draft, name: str, match: re.Match[str]) -> None:
    phrase = match.group()
    if name in ("weekday", "weekend"):
        days = [0, 1, 2, 3, 4] if name == "weekday" else [5, 6]
        if phrase.startswith("every"):
            draft.set("frequency", phrase, ("week", 1, False))
        draft.set("weekdays", phrase, days)
    elif name == "unit":
        number = 2 if match[1] == "other" else int(match[1] or 1)
        draft.set("frequency", phrase, (match[2], number, match[1] not in (None, "other")))
    elif name == "adverb":
        unit = {"daily": "day", "weekly": "week", "monthly": "month", "hourly": "hour"}
        draft.set("frequency", phrase, (unit.get(match[1], "year"), 1, False))
    elif name == "every_days":
        draft.set("frequency", phrase, ("week", 1, False))
        draft.set("weekdays", phrase, t.values(match[1], t.weekday))
    elif name == "nth_weekday":
        draft.set("weekdays", phrase, [0, 1, 2, 3, 4])
        draft.set("setpos", phrase, ([t.nth(match[1])], None))
    else:
        _apply_part(text, draft, name, match)


def _apply_part(text: str, draft: Draft, name: str, match: re.Match[str]) -> None:
    phrase = match.group()
    if name == "dates":
        pairs = [item.split() for item in t.split(match[1])]
        draft.set("months", phrase, [t.month(m) for m, _ in pairs])
        draft.set("monthdays", phrase, sorted({int(d) for _, d in pairs}))
    elif name == "weeks":
        items = [re.sub(r"the |\s*week\s*", "", item) for item in t.split(match[1])]
        draft.set("weeks", phrase, [int(i) if i.isdigit() else t.nth(i) for i in items])
    elif name in ("months", "bare_months"):
        draft.set("months", phrase, t.values(match[1], t.month))
    elif name == "bare_days":
        draft.set("weekdays", phrase, t.values(match[1], t.weekday))
    elif name in ("past", "within"):
        draft.set("within", phrase, [_minute_second(x) for x in t.split(match[1])])
        if name == "past":
            draft.set("past_hours", phrase, t.values(match[2], int))
    elif name == "second_of_minute":
        draft.set("second_of_minute", phrase, t.values(match[1], int))
    elif name == "times":
        draft.set("times", phrase, [_value(text, x, t.clock) for x in t.split(match[1])])
    elif name == "filter":
        draft.set(match[1], phrase, t.values(match[2], int))
    elif name == "between":
        draft.set("hours", phrase, list(range(int(match[1]), int(match[2]) + 1)))
    else:
        _apply_bound(text, draft, name, match)


def _apply_bound(text: str, draft: Draft, name: str, match: re.Match[str]) -> None:
    phrase = match.group()
    if name == "setpos":
        draft.set("setpos", phrase, ([t.nth(x) for x in t.split(match[1])], match[2]))
    elif name == "wkst":
        draft.set("wkst", phrase, t.weekday(match[1]))
    elif name in ("start", "until"):
        draft.set(name, phrase, _value(text, match[1], t.day_time, name == "until"))
    elif name == "count":
        draft.set("count", phrase, int(match[1]))
    elif name in ("clock", "elapsed"):
        draft.set(name, phrase, True)
    elif name in ("exdates", "rdates", "on_datetimes"):
        name = "rdates" if name == "on_datetimes" else name
        draft.set(name, phrase, [_value(text, x, t.day_time) for x in t.date_times(match[1])])
    elif name == "every_month":
        draft.set("frequency", phrase, (match[1], 1, False))


def _minute_second(item: str) -> tuple[int, int]:
    minute, _, second = item.strip(":").partition(":")
    return int(minute), int(second or 0)


def _value(text: str, item: str, read: Callable[..., Any], *args: object) -> Any:
    try:
        return read(item, *args)
    except (ValueError, KeyError) as exc:
        raise InvalidSchedule(text, f"{quote(item)}: not a valid time or date", hint=_HINT) from exc


def _zone_suffix(text: str) -> tuple[str, str | None]:
    """A trailing '(Europe/Berlin)' names the zone the text is read in."""
    match = re.search(r"\s*\(([A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)*)\)\s*$", text)
    if match is None or not ("/" in match[1] or match[1] == "UTC"):
        return text, None
    return text[: match.start()], match[1]


def _strip(rest: str) -> str:
    return re.sub(r"^(?:\s*[,;]\s*|\s+)(?:and\s+(?!also\b))?", "", rest)


def _ends_word(rest: str, end: int) -> bool:
    return end == len(rest) or not rest[end].isalnum()
