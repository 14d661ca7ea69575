"""Every English word the schedule texts use, in one place so they can be translated later."""

from __future__ import annotations

from datetime import date, datetime

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
#: singular and plural of each FREQ unit (dateutil's constants index this tuple: YEARLY=0 ...)
UNITS = (
    ("year", "years"),
    ("month", "months"),
    ("week", "weeks"),
    ("day", "days"),
    ("hour", "hours"),
    ("minute", "minutes"),
    ("second", "seconds"),
)
ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}
WEEKDAY = "weekday"
EVERY_WEEKDAY = "every weekday"
EVERY_WEEKEND = "every weekend"
LAST_DAY = "the last day"
WARN_MISSING_DAY = "skips months without a {day} day"
WARN_CRON_DST = "cron follows Vixie cron at DST changes; dst_gap/dst_repeat apply to RRULEs"
NOTE_GAP = "{wall} -> {at} (DST gap)"
NOTE_GAP_SKIPPED = "{wall} does not exist on {day}; runs at {at}"
NOTE_SKIPPED = "{wall} does not exist on {day}; skipped (DST gap)"
NOTE_REPEAT_FIRST = "{wall} happens twice on {day}; runs at the first ({at})"
NOTE_REPEAT_SECOND = "{wall} happens twice on {day}; this is the second ({at})"
WARN_DST_SKIP = "occurrences whose local time does not exist (DST gap) are skipped"
WARN_CAP = "no COUNT or UNTIL: ends at the horizon cap on {day}"


def plural(count: int, unit: tuple[str, str]) -> str:
    """'every day' / 'every 2 days' phrasing of a unit."""
    return f"every {unit[0]}" if count == 1 else f"every {count} {unit[1]}"


def join(items: list[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 11th, 22nd ..."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def nth_word(number: int) -> str:
    """'first', 'last', '2nd to last' ..."""
    if number in ORDINAL_WORDS:
        return ORDINAL_WORDS[number]
    return ordinal(number) if number > 0 else f"{ordinal(-number)} to last"


def month_day(day: int) -> str:
    """A BYMONTHDAY value: 'the 15th', 'the last day', 'the 2nd to last day'."""
    if day > 0:
        return f"the {ordinal(day)}"
    return LAST_DAY if day == -1 else f"the {nth_word(day)} day"


def clock(hour: int, minute: int, second: int = 0) -> str:
    """24-hour clock time: 9:00, 17:30, 9:00:15."""
    return f"{hour}:{minute:02d}" + (f":{second:02d}" if second else "")


def long_date(day: date | datetime) -> str:
    """November 10, 2012."""
    return f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"


def extra_dates(count: int) -> str:
    return "plus 1 more date" if count == 1 else f"plus {count} more dates"


def except_dates(count: int) -> str:
    return "except on 1 date" if count == 1 else f"except on {count} dates"


def count_phrase(count: int) -> str:
    return "once" if count == 1 else f"for {count} times"


def until_phrase(day: datetime) -> str:
    return f"until {long_date(day)}"


def zone_phrase(zone: str) -> str:
    return f"({zone})"


def verbatim(parts: list[str]) -> str:
    """How parts that could not be put into words are shown."""
    return f"(also: {';'.join(parts)})"


def once_phrase(at: datetime) -> str:
    return f"once, on {long_date(at)} at {clock(at.hour, at.minute, at.second)}"


def starting_phrase(at: datetime) -> str:
    return f"starting {long_date(at)} at {clock(at.hour, at.minute, at.second)}"
