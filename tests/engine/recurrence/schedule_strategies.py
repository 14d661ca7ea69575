"""Hypothesis strategies for schedules of every kind: RRULEs over every FREQ and BYxxx part
(BYSETPOS, WKST, COUNT, UNTIL, DTSTART in a zone), cron with steps, ranges, names, L/W/#, and
English built from the phrases people write."""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from hypothesis import strategies as st

DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
FREQS = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"]
#: Four zones with DST changes of one hour, 30 minutes (Lord Howe) and a whole day (Apia,
#: 2011), and two without.
ZONES = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Pacific/Apia",
    "Asia/Kolkata",
]


def _values(rnd: Random, low: int, high: int, size: int, negative: bool = False) -> str:
    picked = {rnd.randint(low, high) * (rnd.choice((1, -1)) if negative else 1)}
    picked |= {rnd.randint(low, high) for _ in range(rnd.randint(0, size - 1))}
    return ",".join(map(str, picked))


def random_rrule(rnd: Random, freq: str | None = None) -> str:
    """One RRULE value over every part, the parts in random order."""
    freq = freq or rnd.choice(FREQS)
    parts = [f"FREQ={freq}"]
    if rnd.random() < 0.5:
        parts.append(f"INTERVAL={rnd.choice([1, 2, 3, 5, 7, 13, 90])}")
    numbered = freq in ("MONTHLY", "YEARLY") and rnd.random() < 0.25
    if rnd.random() < 0.5:
        days = set(rnd.sample(DAYS, rnd.randint(1, 5)))
        if numbered:
            limit = 5 if freq == "MONTHLY" else 53
            days = {f"{rnd.choice([1, 2, -1, -2, limit])}{d}" for d in days}
        parts.append("BYDAY=" + ",".join(sorted(days)))
    if freq == "YEARLY" and not numbered and rnd.random() < 0.2:
        parts.append("BYWEEKNO=" + _values(rnd, 1, 53, 3, negative=True))
    if freq in ("YEARLY", "HOURLY", "MINUTELY", "SECONDLY") and rnd.random() < 0.2:
        parts.append("BYYEARDAY=" + _values(rnd, 1, 366, 3, negative=True))
    if freq != "WEEKLY" and rnd.random() < 0.35:
        parts.append("BYMONTHDAY=" + _values(rnd, 1, 31, 4, negative=True))
    if rnd.random() < 0.35:
        parts.append("BYMONTH=" + _values(rnd, 1, 12, 4))
    if rnd.random() < 0.5:
        parts.append("BYHOUR=" + _values(rnd, 0, 23, 4))
    if rnd.random() < 0.35:
        parts.append("BYMINUTE=" + _values(rnd, 0, 59, 3))
    if rnd.random() < 0.25:
        parts.append("BYSECOND=" + _values(rnd, 0, 59, 2))
    if len(parts) > 1 and rnd.random() < 0.25:
        parts.append("BYSETPOS=" + rnd.choice(["1", "-1", "2", "3,-1", "7"]))
    if rnd.random() < 0.2:
        parts.append(f"WKST={rnd.choice(DAYS)}")
    end = rnd.random()
    if end < 0.2:
        parts.append(f"COUNT={rnd.randint(1, 60)}")
    elif end < 0.4:
        until = datetime(2026, 1, 1) + timedelta(days=rnd.randint(1, 3000))
        parts.append(f"UNTIL={until:%Y%m%dT%H%M%S}Z")
    rnd.shuffle(parts)
    return ";".join(parts)


def random_block(rnd: Random) -> str:
    """A bare RRULE, an `RRULE:` line, or a block with DTSTART in a zone."""
    rule = random_rrule(rnd)
    form = rnd.randint(0, 2)
    if form == 0:
        return rule
    if form == 1:
        return f"RRULE:{rule}"
    start = datetime(2012, 1, 1) + timedelta(seconds=rnd.randint(0, 16 * 365 * 86400))
    zone = rnd.choice(ZONES)
    block = f"DTSTART;TZID={zone}:{start:%Y%m%dT%H%M%S} RRULE:{rule}"
    for name in ("EXDATE", "RDATE"):
        if rnd.random() < 0.2:
            days = [start + timedelta(days=rnd.randint(0, 60)) for _ in range(rnd.randint(1, 3))]
            stamps = ",".join(f"{day:%Y%m%dT%H%M%S}" for day in days)
            block += f" {name};TZID={zone}:{stamps}"
    return block


def random_dates(rnd: Random) -> str:
    """RDATE (and EXDATE) alone, without a rule."""
    start = datetime(2026, 1, 1, 9) + timedelta(hours=rnd.randint(0, 24 * 400))
    days = [start + timedelta(days=rnd.randint(0, 30), hours=rnd.randint(0, 5)) for _ in range(4)]
    block = "RDATE:" + ",".join(f"{day:%Y%m%dT%H%M%SZ}" for day in days)
    return block + (f" EXDATE:{days[0]:%Y%m%dT%H%M%SZ}" if rnd.random() < 0.3 else "")


_MINUTE = ["*", "0", "15", "*/10", "*/7", "*/45", "5,35", "0-30/15", "10-20", "0,59"]
_HOUR = ["*", "9", "9-17", "*/5", "*/2", "0,12", "22-2", "2"]
_DOM = ["*", "?", "1", "1,15", "L", "*/2", "10-20", "15W", "31", "29"]
_MONTH = ["*", "JAN,JUL", "3-5", "*/3", "FEB", "jan-mar", "2"]
_DOW = ["*", "MON-FRI", "1,3,5", "FRI#2", "0", "SAT,SUN", "fri-mon", "7", "mon"]


def random_cron(rnd: Random) -> str:
    return " ".join(rnd.choice(options) for options in (_MINUTE, _HOUR, _DOM, _MONTH, _DOW))


_FREQ_PHRASES = [
    "every day", "daily", "every weekday", "every weekend", "every week", "weekly",
    "every 2 weeks", "every other week", "every month", "monthly", "every 3 months",
    "every year", "yearly", "every monday", "every monday and thursday", "every hour",
    "every 2 hours by the clock", "every minute", "every 15 minutes by the clock",
]  # fmt: skip
_DAY_PHRASES = [
    "", "on monday", "on monday, wednesday and friday", "on the last friday",
    "on the first monday", "on the 1st and 15th", "on the last day", "on the 4th last",
    "on the 3rd last tuesday", "on friday the 13th", "on the last weekday", "on weekdays",
]  # fmt: skip
_TIME_PHRASES = ["", "at 9am", "at 9:30", "at 9am and 5pm", "at noon", "at 10, 12 and 17", "at :15"]
_END_PHRASES = ["", "for 10 times", "until december 31, 2027", "in march and september"]


def random_english(rnd: Random) -> str:
    """English built from the phrases people write, refused or not."""
    kinds = (_FREQ_PHRASES, _DAY_PHRASES, _TIME_PHRASES, _END_PHRASES)
    return " ".join(phrase for phrase in (rnd.choice(p) for p in kinds) if phrase)


def random_schedule(rnd: Random) -> str:
    kind = rnd.random()
    if kind < 0.03:
        return random_dates(rnd)
    if kind < 0.6:
        return random_block(rnd)
    return random_cron(rnd) if kind < 0.85 else random_english(rnd)


def schedules() -> st.SearchStrategy[str]:
    """Schedules of every kind, built from one hypothesis-driven Random (one draw each keeps
    thousands of examples cheap)."""
    return st.randoms(use_true_random=False).map(random_schedule)
