"""The *when* of every rule: parse schedules, find next dates, describe them, preview them.

Pure: no I/O, and the clock is read only for `parse_schedule`'s default anchor.
"""

from engine.recurrence.errors import (
    EvaluationBudgetExceeded,
    InvalidSchedule,
    RangeTooLarge,
    ScheduleError,
)
from engine.recurrence.options import DstGap, DstRepeat, ScheduleKind, ScheduleLimits
from engine.recurrence.parse import parse_schedule
from engine.recurrence.preview import Preview, PreviewOccurrence, preview, preview_json
from engine.recurrence.schedule import MAX_BETWEEN, Description, Schedule
from engine.recurrence.wall_rule import EndsBy

__all__ = [
    "MAX_BETWEEN",
    "Description",
    "DstGap",
    "DstRepeat",
    "EndsBy",
    "EvaluationBudgetExceeded",
    "InvalidSchedule",
    "Preview",
    "PreviewOccurrence",
    "RangeTooLarge",
    "Schedule",
    "ScheduleError",
    "ScheduleKind",
    "ScheduleLimits",
    "parse_schedule",
    "preview",
    "preview_json",
]
