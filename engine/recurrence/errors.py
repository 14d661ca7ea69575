"""Errors of the recurrence package: one root, input errors say what, where and how to fix."""

from __future__ import annotations

#: The most characters of a bad token an error message quotes.
QUOTE_CHARS = 80


def quote(token: str) -> str:
    """`token` in quotes for an error message, cut to QUOTE_CHARS characters."""
    if len(token) <= QUOTE_CHARS:
        return repr(token)
    return repr(token[: QUOTE_CHARS - 1] + "…") + f" ({len(token)} characters)"


def named_value(name: str, value: str) -> str:
    """`NAME=VALUE` for an error message, the value cut to QUOTE_CHARS characters."""
    if len(value) <= QUOTE_CHARS:
        return f"{name}={value}"
    return f"{name}={value[: QUOTE_CHARS - 1]}… ({len(value)} characters)"


class ScheduleError(Exception):
    """A schedule could not be parsed or evaluated."""


class InvalidSchedule(ScheduleError):
    """The schedule text is not a valid schedule.

    `text` is the offending input, `position` the character offset of the bad part in it (None
    when the problem is the rule as a whole), `reason` what is wrong and `hint` how to fix it.
    `str()` is one line: the reason, then the hint.
    """

    def __init__(
        self, text: str, reason: str, *, position: int | None = None, hint: str = ""
    ) -> None:
        self.text = text[:QUOTE_CHARS]
        self.position = position
        self.reason = reason
        self.hint = hint
        super().__init__(f"{reason} ({hint})" if hint else reason)


class NeverOccurs(InvalidSchedule):
    """The rule has no occurrence between its start and its end (or the horizon)."""


class RangeTooLarge(ScheduleError):
    """A `between` range holds more occurrences than one call may return; ask for less."""


class EvaluationBudgetExceeded(ScheduleError):
    """Evaluating the schedule took more steps than the budget allows; the rule is pathological."""
