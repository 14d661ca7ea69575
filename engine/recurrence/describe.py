"""Plain-English text of RFC 5545 rules, in the style of calendar tools and rrule.js.

The text never lies: a part that cannot be phrased (BYWEEKNO, BYYEARDAY, most BYSETPOS uses,
BYSECOND) is appended verbatim and the description is marked incomplete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dateutil import rrule as du

from engine.recurrence import wording as w
from engine.recurrence.schedule import Description
from engine.recurrence.wall_rule import EndsBy, WallRule

if TYPE_CHECKING:
    from engine.recurrence.recurrence import Recurrence

_WEEKDAYS = (0, 1, 2, 3, 4)
_WEEKEND = (5, 6)
_UNPHRASED = (("byweekno", "BYWEEKNO"), ("byyearday", "BYYEARDAY"), ("byeaster", "BYEASTER"))


def describe_recurrence(recurrence: Recurrence) -> Description:
    """All rules joined by 'and', plus RDATE/EXDATE counts and the zone."""
    texts, complete = [], True
    for rule, raw in zip(recurrence.rules, recurrence.texts, strict=True):
        text, rule_complete = describe_rule(rule, raw)
        texts.append(text)
        complete = complete and rule_complete
    if recurrence.rdates:
        texts.append(w.extra_dates(len(recurrence.rdates)))
    text = "; ".join(texts)
    if recurrence.exdates:
        text += ", " + w.except_dates(len(recurrence.exdates))
    if any(rule.kwargs["freq"] <= du.HOURLY for rule in recurrence.rules):
        text += " " + w.zone_phrase(recurrence.zone_name)
    return Description(text, complete)


def describe_rule(rule: WallRule, raw: str) -> tuple[str, bool]:
    """One rule's text and whether every part of it made it into words."""
    k = rule.kwargs
    unphrased = [f"{name}={_raw_part(raw, name)}" for key, name in _UNPHRASED if k.get(key)]
    words = [_frequency(k)]
    setpos = k.get("bysetpos")
    days = _days(k, setpos)
    if days is None:
        unphrased.append(f"BYSETPOS={_raw_part(raw, 'BYSETPOS')}")
        days = _days(k, None)
    words += [part for part in (days, _months(k), _times(k)) if part]
    if rule.ends_by is EndsBy.COUNT and rule.count is not None:
        words.append(w.count_phrase(rule.count))
    elif rule.ends_by is EndsBy.UNTIL:
        words.append(w.until_phrase(rule.end))
    if any(second for second in k.get("bysecond") or ()):
        unphrased.append(f"BYSECOND={_raw_part(raw, 'BYSECOND')}")
    if unphrased:
        words.append(w.verbatim(unphrased))
    return " ".join(words), not unphrased


def _frequency(k: dict[str, Any]) -> str:
    freq, interval = k["freq"], k["interval"]
    plain = _plain_weekdays(k)
    simple = interval == 1 and not k.get("bysetpos")
    if freq in (du.WEEKLY, du.DAILY) and simple and plain == _WEEKDAYS:
        return w.EVERY_WEEKDAY
    if freq in (du.WEEKLY, du.DAILY) and simple and plain == _WEEKEND:
        return w.EVERY_WEEKEND
    if freq == du.DAILY and interval == 1 and plain:
        return "every " + w.join([w.WEEKDAY_NAMES[day] for day in plain])
    return w.plural(interval, w.UNITS[freq])


def _plain_weekdays(k: dict[str, Any]) -> tuple[int, ...]:
    return tuple(sorted({d.weekday for d in k.get("byweekday") or () if d.n in (None, 0)}))


def _days(k: dict[str, Any], setpos: tuple[int, ...] | None) -> str | None:
    """'on Monday and Thursday', 'on the last Monday', 'on the 1st and 15th'; None: can't say."""
    freq = k["freq"]
    weekdays = list(k.get("byweekday") or ())
    if setpos:
        if len(setpos) != 1 or not weekdays or k.get("bymonthday") or freq > du.WEEKLY:
            return None
        plain = _plain_weekdays(k)
        what = (
            w.WEEKDAY if plain == _WEEKDAYS else w.join([w.WEEKDAY_NAMES[d] for d in plain], "or")
        )
        return f"on the {w.nth_word(setpos[0])} {what}"
    parts = []
    named_by_frequency = _frequency(k) in (w.EVERY_WEEKDAY, w.EVERY_WEEKEND) or (
        freq == du.DAILY and k["interval"] == 1 and _plain_weekdays(k)
    )
    if weekdays and not named_by_frequency:
        parts.append("on " + w.join([_weekday(day) for day in weekdays]))
    monthdays = k.get("bymonthday") or ()
    if parts and len(weekdays) == 1 and len(monthdays) == 1 and monthdays[0] > 0:
        parts[-1] += f" the {w.ordinal(monthdays[0])}"  # "on Friday the 13th"
    elif monthdays and not _is_single_yearly_day(k):
        parts.append("on " + w.join([w.month_day(d) for d in sorted(monthdays, key=_day_order)]))
    return " ".join(parts)


def _weekday(day: du.weekday) -> str:
    name = w.WEEKDAY_NAMES[day.weekday]
    return f"the {w.nth_word(day.n)} {name}" if day.n else name


def _day_order(day: int) -> int:
    return day if day > 0 else 100 - day


def _is_single_yearly_day(k: dict[str, Any]) -> bool:
    """YEARLY with months and one plain day of month: said as 'on January 1 and July 1'."""
    months, days = k.get("bymonth") or (), k.get("bymonthday") or ()
    plain = not k.get("byweekday")
    return k["freq"] == du.YEARLY and bool(months) and len(days) == 1 and days[0] > 0 and plain


def _months(k: dict[str, Any]) -> str:
    months = sorted(k.get("bymonth") or ())
    if _is_single_yearly_day(k):
        day = k["bymonthday"][0]
        return "on " + w.join([f"{w.MONTH_NAMES[m - 1]} {day}" for m in months])
    if not months:
        return ""
    names = [w.MONTH_NAMES[m - 1] for m in months]
    return ("of " if k.get("byweekday") else "in ") + w.join(names)


def _times(k: dict[str, Any]) -> str:
    hours, minutes = sorted(k.get("byhour") or ()), sorted(k.get("byminute") or ())
    if k["freq"] >= du.MINUTELY:
        minute_text = "at minutes " + w.join([f":{m:02d}" for m in minutes]) if minutes else ""
        hour_text = f"during the hours {w.join([str(h) for h in hours])}" if hours else ""
        return " ".join(part for part in (minute_text, hour_text) if part)
    if k["freq"] == du.HOURLY:
        minute_text = "" if minutes == [0] else "at " + w.join([f":{m:02d}" for m in minutes])
        hour_text = f"during the hours {w.join([str(h) for h in hours])}" if hours else ""
        return " ".join(part for part in (minute_text, hour_text) if part)
    if minutes == [0] and len(hours) > 1:
        return "at " + w.join([str(h) for h in hours])
    return "at " + w.join([w.clock(h, m) for h in hours for m in minutes])


def _raw_part(raw: str, name: str) -> str:
    for chunk in raw.split(";"):
        key, _, value = chunk.partition("=")
        if key.strip().upper() == name:
            return value
    return "?"
