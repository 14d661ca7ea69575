"""Plain-English text of cron expressions ("at 09:30, Monday through Friday")."""

from __future__ import annotations

from engine.recurrence import wording as w
from engine.recurrence.schedule import Description

_DOW = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NAMES = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
_MONTHS = {name[:3].lower(): i + 1 for i, name in enumerate(w.MONTH_NAMES)}


def describe_cron(expression: str, day_or: bool, zone_name: str) -> Description:
    """Text for a five-field expression; fields that cannot be phrased are quoted verbatim."""
    minute, hour, dom, month, dow = expression.split()
    unphrased: list[str] = []
    parts = [_time(minute, hour, unphrased)]
    days = [text for text in (_dom(dom, unphrased), _dow(dow, unphrased)) if text]
    parts.append((" or " if day_or else ", ").join(days))
    parts.append(_month(month, unphrased))
    text = ", ".join(part for part in parts if part) + " " + w.zone_phrase(zone_name)
    if unphrased:
        text += " " + w.verbatim(unphrased)
    return Description(text, not unphrased)


def _values(field: str, names: dict[str, int]) -> list[int] | None:
    """Numbers listed by a field of plain values and ranges; None for steps and specials."""
    out: list[int] = []
    for item in field.lower().split(","):
        low, _, high = item.partition("-")
        try:
            first = names[low] if low in names else int(low)
            last = (names[high] if high in names else int(high)) if high else first
        except ValueError:
            return None
        out.extend(range(first, last + 1))
    return out


def _time(minute: str, hour: str, unphrased: list[str]) -> str:
    if minute == "*" and hour == "*":
        return "every minute"
    if minute.startswith("*/") and hour == "*":
        return w.plural(int(minute[2:]), w.UNITS[5])
    minutes, hours = _values(minute, {}), _values(hour, {})
    if minutes == [0] and hour == "*":
        return "every hour"
    if minutes is not None and hour == "*":
        return "at " + w.join([f":{m:02d}" for m in minutes]) + " past every hour"
    if minutes is not None and len(minutes) == 1 and _is_range(hour) and hours and len(hours) > 3:
        first, last = (f"{h:02d}:{minutes[0]:02d}" for h in (hours[0], hours[-1]))
        return f"every hour from {first} through {last}"
    if minutes is not None and hours is not None and len(minutes) * len(hours) <= 12:
        return "at " + w.join([f"{h:02d}:{m:02d}" for h in hours for m in minutes])
    unphrased.append(f"minute={minute} hour={hour}")
    return ""


def _dom(field: str, unphrased: list[str]) -> str:
    if field.startswith("*"):
        return "" if field == "*" else _unphrased(unphrased, "day-of-month", field)
    days = _values(field, {})
    if days is None:
        return _unphrased(unphrased, "day-of-month", field)
    if _is_range(field) and len(days) > 2:
        return f"on days {days[0]} through {days[-1]} of the month"
    return "on the " + w.join([w.ordinal(d) for d in days]) + " of the month"


def _dow(field: str, unphrased: list[str]) -> str:
    if field.startswith("*"):
        return "" if field == "*" else _unphrased(unphrased, "day-of-week", field)
    days = _values(field, _NAMES)
    if days is None:
        return _unphrased(unphrased, "day-of-week", field)
    if _is_range(field):
        return f"{_DOW[days[0]]} through {_DOW[days[-1]]}"
    return "on " + w.join([_DOW[d] for d in days])


def _month(field: str, unphrased: list[str]) -> str:
    if field == "*":
        return ""
    months = _values(field, _MONTHS)
    if months is None:
        return _unphrased(unphrased, "month", field)
    return "in " + w.join([w.MONTH_NAMES[m - 1] for m in months])


def _is_range(field: str) -> bool:
    return "-" in field and "," not in field


def _unphrased(unphrased: list[str], name: str, field: str) -> str:
    unphrased.append(f"{name}={field}")
    return ""
