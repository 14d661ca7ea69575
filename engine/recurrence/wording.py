"""Every English word the schedule texts use, in one place: `describe` writes with them and
`natural` reads with them, so what one writes the other understands."""

from __future__ import annotations

from collections.abc import Sequence
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
EVERY_WEEKDAY = "every weekday"
EVERY_WEEKEND = "every weekend"
BY_THE_CLOCK = "by the clock"
ELAPSED = "of elapsed time"
#: Lists longer than this (after ranges are merged) are summarised, and the text incomplete.
MAX_LISTED = 24
#: EXDATE/RDATE values named in a text; more are counted, and the text incomplete.
MAX_DATES_NAMED = 5

WARN_MISSING_DAY = "skips months without a {day} day"
WARN_LEAP_ONLY = "runs only in leap years (February {day})"
WARN_UNTIL_CUTS = "UNTIL {until} comes before that day's run at {run}: the last run is {last}"
WARN_RULE_DEAD = "RRULE {rule} never occurs: it adds nothing"
WARN_EXDATE_UNUSED = "EXDATE {dates} matches no occurrence: it changes nothing"
WARN_RDATE_DOUBLED = "RDATE {dates} is already an occurrence: it changes nothing"
WARN_RDATE_REMOVED = "RDATE {dates} is also an EXDATE: it does not run"
WARN_CRON_DST = "cron follows Vixie cron at DST changes; dst_gap/dst_repeat apply to RRULEs"
WARN_DST_SKIP = "occurrences whose local time does not exist (DST gap) are skipped"
WARN_CAP = (
    "no COUNT or UNTIL: stops at the horizon on {day}, {years} years after {since} "
    "(the horizon_years setting)"
)
WARN_ELAPSED_DRIFT = (
    "runs keep {step} of elapsed time apart, so their local time moves at DST changes "
    "(next on {day}: {before} becomes {after})"
)
NOTE_GAP = "{wall} -> {at} (DST gap)"
NOTE_GAP_SKIPPED = "{wall} does not exist on {day}; runs at {at}"
NOTE_GAP_MERGED = "{wall} does not exist on {day}; it runs once with {at}, which runs anyway"
NOTE_SKIPPED = "{wall} does not exist on {day}; skipped (DST gap)"
NOTE_CALENDAR_SKIP = "skipped: holiday (calendar '{calendar}')"
WARN_END_EXCLUDED = (
    "its last occurrence ({day}) is on a date calendar '{calendar}' excludes: the last run is "
    "an earlier one"
)
WARN_CALENDARS_EXCLUDE_ALL = (
    "no occurrence: its calendars exclude every date the schedule has left (before its horizon)"
)
NOTE_REPEAT_FIRST = "{wall} happens twice on {day}; runs at the first ({at})"
NOTE_REPEAT_SECOND = "{wall} happens twice on {day}; this is the second ({at})"
NOTE_REPEAT_BOTH = "{wall} happens twice on {day}; runs at both"


def plural(count: int, unit: tuple[str, str]) -> str:
    """'every day' / 'every 2 days' phrasing of a unit."""
    return f"every {unit[0]}" if count == 1 else f"every {count} {unit[1]}"


def join(items: Sequence[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 11th, 22nd ..."""
    tens = 10 <= number % 100 <= 20
    suffix = "th" if tens else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def nth_word(number: int) -> str:
    """'first', 'last', '20th', '2nd to last' ..."""
    if number in ORDINAL_WORDS:
        return ORDINAL_WORDS[number]
    return ordinal(number) if number > 0 else f"{ordinal(-number)} to last"


def runs(values: Sequence[int]) -> list[tuple[int, int]]:
    """Ascending values as (first, last) runs of consecutive numbers."""
    out: list[tuple[int, int]] = []
    for value in values:
        if out and value == out[-1][1] + 1 and value > 0:
            out[-1] = (out[-1][0], value)
        else:
            out.append((value, value))
    return out


def ranged(values: Sequence[int], name: object) -> list[str]:
    """Values named by `name` (a function), runs of three or more as 'a through b'."""
    out = []
    for first, last in runs(values):
        if last - first >= 2:
            out.append(f"{name(first)} through {name(last)}")  # type: ignore[operator]
        else:
            out.extend(name(v) for v in range(first, last + 1))  # type: ignore[operator]
    return out


def clock(hour: int, minute: int, second: int = 0) -> str:
    """24-hour clock time: 9:00, 17:30, 9:00:15."""
    return f"{hour}:{minute:02d}" + (f":{second:02d}" if second else "")


def long_date(day: date | datetime) -> str:
    """November 10, 2012."""
    return f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"


def date_time(wall: datetime) -> str:
    """November 10, 2012 at 9:00 (the time left out at midnight)."""
    moment = wall.hour * 3600 + wall.minute * 60 + wall.second
    at = f" at {clock(wall.hour, wall.minute, wall.second)}" if moment else ""
    return long_date(wall) + at


def zone_phrase(zone: str) -> str:
    return f"({zone})"


def verbatim(parts: list[str]) -> str:
    """How parts that could not be put into words are shown."""
    return f"(not put into words: {'; '.join(parts)})"
