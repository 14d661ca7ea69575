"""An English schedule being read: each part filled once, then checked as a whole.

`natural` fills the parts phrase by phrase; `finish` turns them into an elapsed interval or a
`Sentence` of RRULEs, refusing parts that contradict each other (a time of day for a rule that
runs many times a day, minutes of an hour for a daily rule) with the phrases named.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import time, timedelta
from typing import Any

from dateutil import rrule as du

from engine.recurrence.english_days import Days
from engine.recurrence.errors import InvalidSchedule, quote
from engine.recurrence.phrase import Elapsed, Phrase, Sentence

_FREQ = {
    "year": du.YEARLY, "month": du.MONTHLY, "week": du.WEEKLY, "day": du.DAILY,
    "hour": du.HOURLY, "minute": du.MINUTELY, "second": du.SECONDLY,
}  # fmt: skip
_SECONDS = {"day": 86_400, "hour": 3600, "minute": 60, "second": 1}
#: What each part says, for the message when two phrases both give it.
_WHAT = {
    "frequency": "how often it repeats",
    "weekdays": "the days of the week",
    "times": "the times of day",
    "within": "the minutes of the hour",
}
_CALENDAR = {
    "weekdays", "nth", "monthdays", "yeardays", "weeks", "months", "times", "within",
    "past_hours", "second_of_minute", "hours", "minutes", "seconds", "setpos", "wkst",
    "count", "until", "exdates", "rdates", "clock", "alternatives",
}  # fmt: skip
_DAY_PARTS = ("weekdays", "nth", "monthdays", "yeardays")
_HINT = "write e.g. 'every weekday at 9am', 'every month on the last Friday at 18:00' or an RRULE"


@dataclass
class Draft:
    """The parts read so far, each with the phrase that gave it."""

    text: str

    def __post_init__(self) -> None:
        self.parts: dict[str, tuple[str, Any]] = {}

    def set(self, part: str, phrase: str, value: Any) -> None:
        if part in self.parts:
            earlier = self.parts[part][0]
            what = _WHAT.get(part, f"the {part.replace('_', ' ')}")
            reason = f"{quote(earlier)} and {quote(phrase)} both give {what}"
            raise InvalidSchedule(
                self.text,
                reason,
                hint="say it once, e.g. 'every monday and tuesday at 9am and 5pm'",
            )
        self.parts[part] = (phrase, value)

    def set_days(self, phrase: str, alternatives: list[Days]) -> None:
        if len(alternatives) > 1:
            self.set("alternatives", phrase, alternatives)
            return
        for part in _DAY_PARTS:
            found = getattr(alternatives[0], part)
            if found:
                self.set(part, phrase, found)

    def get(self, part: str, default: Any = None) -> Any:
        return self.parts[part][1] if part in self.parts else default

    def finish(self, zone: str | None) -> Sentence | Elapsed:
        frequency = self.get("frequency")
        elapsed = frequency is not None and frequency[2] and frequency[0] in _SECONDS
        if (elapsed or "elapsed" in self.parts) and not _CALENDAR & self.parts.keys():
            return self._elapsed(zone)
        if "elapsed" in self.parts:
            self._refuse("elapsed", "an elapsed interval has no days or times: drop them")
        if self.parts.keys() <= {"rdates", "exdates", "start"} and "rdates" in self.parts:
            return Sentence(
                (), None, zone, tuple(self.get("rdates")), tuple(self.get("exdates", ()))
            )
        base = self._base()
        rules = tuple(self._with_days(base, days) for days in self._alternatives())
        return Sentence(
            rules, self.get("start"), zone, tuple(self.get("rdates", ())),
            tuple(self.get("exdates", ())),
        )  # fmt: skip

    def _elapsed(self, zone: str | None) -> Elapsed:
        if self.get("frequency") is None:
            self._refuse("elapsed", "say how much time, e.g. 'every 90 minutes of elapsed time'")
        unit, number, _ = self.get("frequency")
        if unit not in _SECONDS:
            self._refuse("frequency", "elapsed time counts days, hours, minutes or seconds")
        return Elapsed(timedelta(seconds=number * _SECONDS[unit]), self.get("start"), zone)

    def _base(self) -> Phrase:
        freq, interval = self._frequency()
        hours, minutes, seconds = self._times(freq)
        setpos, unit = self.get("setpos", ((), None))
        if unit is not None and _FREQ[unit] != freq:
            self._refuse("setpos", f"the rule repeats every {_name(freq)}, not every {unit}")
        if "count" in self.parts and "until" in self.parts:
            self._refuse("until", f"{quote(self.parts['count'][0])} already ends it: give one")
        return Phrase(
            freq, interval, months=tuple(sorted(set(self.get("months", ())))),
            weeks=tuple(self.get("weeks", ())), hours=hours, minutes=minutes, seconds=seconds,
            setpos=tuple(setpos), wkst=self.get("wkst", 0), count=self.get("count"),
            until=self.get("until"),
        )  # fmt: skip

    def _frequency(self) -> tuple[int, int]:
        frequency = self.get("frequency")
        if frequency is not None:
            return _FREQ[frequency[0]], frequency[1]
        if not self.parts.keys() & {*_DAY_PARTS, "times", "months", "alternatives"}:
            raise InvalidSchedule(self.text, "no 'every ...' found", position=0, hint=_HINT)
        return (du.MONTHLY if "nth" in self.parts else du.DAILY), 1

    def _times(self, freq: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """BYHOUR, BYMINUTE, BYSECOND from the time phrases that fit the frequency."""
        if freq < du.HOURLY:
            for part in ("hours", "minutes", "seconds", "second_of_minute"):
                self._not_with(part, "it runs at most once a day: give times with 'at 9:00'")
            return self._clock_times()
        self._not_with("times", "it runs many times a day: write 'every day at ...' for one run")
        self._not_with("past_hours", "it runs many times a day")
        hours = tuple(sorted(set(self.get("hours", ()))))
        if freq == du.HOURLY:
            for part in ("minutes", "seconds", "second_of_minute"):
                self._not_with(part, "an hourly rule takes its minutes from 'at :15'")
            within = self._grid("within")
            return hours, within[0], within[1]
        self._not_with("within", "minutes of the hour fit an hourly rule")
        minutes = tuple(sorted(set(self.get("minutes", ()))))
        if freq == du.MINUTELY:
            self._not_with("seconds", "a rule by the minute takes its seconds from 'at second 15'")
            return hours, minutes, tuple(sorted(set(self.get("second_of_minute", ()))))
        self._not_with("second_of_minute", "use 'during the seconds ...'")
        return hours, minutes, tuple(sorted(set(self.get("seconds", ()))))

    def _clock_times(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        if "within" in self.parts and "past_hours" not in self.parts:
            self._refuse("within", "minutes of the hour need 'past the hours ...' or a time")
        if "times" in self.parts and "within" in self.parts:
            self._refuse("within", f"{quote(self.parts['times'][0])} already gives the times")
        if "within" in self.parts:
            minutes, seconds = self._grid("within")
            return tuple(sorted(set(self.get("past_hours")))), minutes, seconds
        moments: list[time] = self.get("times", [])
        if not moments:
            return (), (), ()
        grid = (
            tuple(sorted({m.hour for m in moments})),
            tuple(sorted({m.minute for m in moments})),
            tuple(sorted({m.second for m in moments})),
        )
        if len(set(moments)) != len(grid[0]) * len(grid[1]) * len(grid[2]):
            self._refuse("times", "every listed hour must run at every listed minute; "
                         "write one schedule per time, or an RRULE")  # fmt: skip
        return grid

    def _grid(self, part: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        pairs = set(self.get(part, ()))
        minutes = tuple(sorted({m for m, _ in pairs}))
        seconds = tuple(sorted({s for _, s in pairs}))
        if len(pairs) != len(minutes) * len(seconds):
            self._refuse(part, "every listed minute must run at every listed second")
        return minutes, seconds

    def _alternatives(self) -> list[Days]:
        return self.get("alternatives") or [Days()]

    def _with_days(self, base: Phrase, days: Days) -> Phrase:
        weekdays = list(self.get("weekdays", ())) + days.weekdays
        nth = list(self.get("nth", ())) + days.nth
        monthdays = list(self.get("monthdays", ())) + days.monthdays
        yeardays = list(self.get("yeardays", ())) + days.yeardays
        freq = base.freq
        if "frequency" not in self.parts and nth and freq == du.DAILY:
            freq = du.MONTHLY
        return replace(
            base, freq=freq, weekdays=tuple(sorted(set(weekdays))),
            nth_weekdays=tuple(dict.fromkeys(nth)), monthdays=tuple(dict.fromkeys(monthdays)),
            yeardays=tuple(dict.fromkeys(yeardays)),
        )  # fmt: skip

    def _not_with(self, part: str, why: str) -> None:
        if part in self.parts:
            self._refuse(part, why)

    def _refuse(self, part: str, why: str) -> None:
        phrase = self.parts[part][0] if part in self.parts else ""
        frequency = self.parts.get("frequency", ("",))[0]
        lead = f"{quote(phrase)} does not fit {quote(frequency)}" if frequency else quote(phrase)
        raise InvalidSchedule(self.text, f"{lead}: {why}", hint=_HINT)


def _name(freq: int) -> str:
    return {v: k for k, v in _FREQ.items()}[freq]
