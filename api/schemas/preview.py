"""`POST /v1/preview`: a schedule in, its text, next dates, end and warnings out."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from api.schemas.common import Input, Instant, Public, TimeZone
from engine.recurrence import DstGap, DstRepeat
from engine.recurrence.parse import MAX_TEXT_CHARS
from engine.recurrence.preview import MAX_PREVIEW

Schedule = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="RRULE (bare or with DTSTART/RDATE/EXDATE), cron, interval, "
        "ISO 8601 instant or plain English.",
        examples=["FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=9", "30 9 * * 1-5", "every 15m"],
    ),
]
#: An instant as the preview prints it: ISO 8601 in the schedule's zone, with its offset.
OffsetInstant = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class PreviewCreate(Input):
    schedule: Schedule
    timezone: TimeZone = "UTC"
    after: Instant | None = Field(
        None, description="List occurrences strictly after this instant (default: now)."
    )
    count: int = Field(
        strict=True, default=10, ge=1, le=MAX_PREVIEW, description="How many occurrences to list."
    )
    dst_gap: DstGap = DstGap.SHIFT
    dst_repeat: DstRepeat = DstRepeat.FIRST

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


class PreviewPublic(Public):
    text: str = Field(description="The schedule in plain English.")
    complete: bool = Field(description="False when part of the text is quoted verbatim.")
    occurrences: list[OffsetInstant]
    finite: bool = Field(description="True when the series ends by COUNT or UNTIL.")
    ends: OffsetInstant | None = Field(description="The last instant it may occur at.")
    ends_by: str | None = Field(description="count, until or cap (the UNTIL horizon).")
    warnings: list[str]
    notes: list[NotePublic] = Field(description="Occurrences DST moved or doubled.")
