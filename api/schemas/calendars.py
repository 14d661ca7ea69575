"""Calendars: `CalendarPut` in (PUT creates or replaces), `CalendarPublic` out.

Names and sizes are bounded here so the OpenAPI states them; dates are plain ISO dates
(`YYYY-MM-DD`), the local dates of the rule's zone a calendar excludes or allows.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated

from pydantic import BeforeValidator, Field

from api.schemas.common import Input, Public

#: Letters, digits, space, `_ . -`; starts with a letter or digit (it is a URL path segment).
CALENDAR_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$"
#: Dates one list of a calendar may hold: a few years of days.
MAX_CALENDAR_DATES = 1000
#: Calendars one rule may name.
MAX_RULE_CALENDARS = 10

CalendarName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        pattern=CALENDAR_NAME_PATTERN,
        description="A calendar's name: letters, digits, space, `_ . -` (at most 100).",
        examples=["Holidays DE"],
    ),
]
RuleCalendars = Annotated[
    list[CalendarName],
    Field(
        max_length=MAX_RULE_CALENDARS,
        description="Names of your calendars: occurrences on a date one of them excludes (in "
        "the rule's zone) are skipped. At most 10, each once.",
    ),
]
#: `YYYY-MM-DD` and nothing else (pydantic alone would also take 0 or "0" as 1970-01-01).
ISO_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def _iso_text(value: object) -> object:
    if isinstance(value, str) and re.fullmatch(ISO_DATE_PATTERN, value):
        return value
    raise ValueError(f"{str(value)[:40]!r} is not a date: write YYYY-MM-DD, e.g. 2026-12-25")


IsoDate = Annotated[
    date, BeforeValidator(_iso_text), Field(json_schema_extra={"pattern": ISO_DATE_PATTERN})
]
DateList = Annotated[list[IsoDate], Field(max_length=MAX_CALENDAR_DATES)]


class CalendarPut(Input):
    description: str = Field("", max_length=2000)
    excluded: DateList = Field(
        default_factory=list,
        description="Dates (YYYY-MM-DD) no rule using this calendar runs on; at most 1000.",
        examples=[["2026-12-25", "2026-12-26"]],
    )
    included: DateList = Field(
        default_factory=list,
        description="When not empty, rules using this calendar run only on these dates (minus "
        "the excluded ones); at most 1000.",
    )

    model_config = {
        "json_schema_extra": {
            "examples": [{"description": "Public holidays", "excluded": ["2026-12-25"]}]
        }
    }


class RuleRefPublic(Public):
    id: str
    name: str


class CalendarPublic(Public):
    name: str
    description: str
    excluded: list[date]
    included: list[date]
    version: int = Field(description="Bumped on every change.")
    created_at: datetime
    updated_at: datetime
    rules: list[RuleRefPublic] = Field(description="The rules that use it.")
