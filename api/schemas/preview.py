"""`POST /v1/preview`: a schedule in, its text, next dates, end and warnings out."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from api.schemas.calendars import RuleCalendars
from api.schemas.common import Input, Instant, Public, TimeZone
from engine.recurrence import DstGap, DstRepeat
from engine.recurrence.parse import MAX_TEXT_CHARS
from engine.recurrence.preview import MAX_PREVIEW

Schedule = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="RRULE (parts in any order, bare or with DTSTART/RDATE/EXDATE), five-field "
        "cron (names, L, W, #), elapsed interval, ISO 8601 instant or plain English. At most "
        "16 384 characters (MAX_TEXT_CHARS); see docs/schedules.md.",
        examples=["FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9", "30 9 * * MON-FRI", "every 15m"],
    ),
]
#: An instant as the preview prints it: ISO 8601 in the schedule's zone, with its offset.
OffsetInstant = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class PreviewCreate(Input):
    schedule: Schedule
    timezone: TimeZone | None = Field(
        None, description="The IANA zone of the schedule; null or absent: the tenant's default."
    )
    after: Instant | None = Field(
        None,
        description="List occurrences strictly after this instant (default: now); it needs an "
        "offset, as `cadenza preview --after` does. It is also the anchor of a schedule written "
        "without a start, and what the horizon of an open-ended schedule counts from.",
    )
    count: int = Field(
        strict=True, default=10, ge=1, le=MAX_PREVIEW, description="How many occurrences to list."
    )
    dst_gap: DstGap = DstGap.SHIFT
    dst_repeat: DstRepeat = DstRepeat.FIRST
    calendars: RuleCalendars = Field(default_factory=list)

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "schedule": "DTSTART;TZID=America/New_York:19970902T090000\n"
                    "RRULE:FREQ=DAILY;COUNT=10",
                    "after": "1997-09-01T00:00:00-04:00",
                    "count": 3,
                }
            ]
        }
    }


class NotePublic(Public):
    at: OffsetInstant
    note: str


class SkippedPublic(Public):
    at: OffsetInstant
    calendar: str = Field(description="The calendar that excludes its date.")
    note: str = Field(examples=["skipped: holiday (calendar 'Holidays DE')"])


class PreviewPublic(Public):
    text: str = Field(description="The schedule in plain English.")
    complete: bool = Field(
        description="True when the text, read back as a schedule, gives the same occurrences; "
        "false when it leaves a part out, which it then names '(not put into words: ...)'."
    )
    occurrences: list[OffsetInstant]
    finite: bool = Field(description="True when the series ends by COUNT or UNTIL.")
    ends: OffsetInstant | None = Field(description="The instant of the last occurrence.")
    ends_by: str | None = Field(
        description="count, until, or cap: no COUNT or UNTIL, so it stops at the horizon "
        "(horizon_years after its start or creation, whichever is later)."
    )
    warnings: list[str] = Field(description="What is true of the series that may surprise.")
    notes: list[NotePublic] = Field(description="Occurrences DST moved or doubled.")
    skipped: list[SkippedPublic] = Field(
        description="Occurrences the calendars removed, up to the last listed one."
    )
