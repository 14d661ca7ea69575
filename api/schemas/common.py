"""What every schema shares: strict inputs, aware timestamps, time zone names checked early."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.zones import load_zone


class Input(BaseModel):
    """A request body: unknown fields are refused, so a typo never silently does nothing.

    Text fields may not contain NUL: PostgreSQL cannot store it in text, and nobody means it.
    Fields named in `nul_allowed` (JSON documents stored as JSON) are exempt.
    """

    model_config = ConfigDict(extra="forbid")
    nul_allowed: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and "\x00" in value and info.field_name not in cls.nul_allowed:
            raise ValueError(f"contains a NUL character at position {value.index(chr(0))}")
        return value


class Public(BaseModel):
    """A response body, built from our records (dataclasses) by attribute."""

    model_config = ConfigDict(from_attributes=True)


def _zone(name: str) -> str:
    try:
        load_zone(name)
    except InvalidSchedule as exc:
        raise ValueError(str(exc)) from exc
    return name


TimeZone = Annotated[
    str,
    Field(min_length=1, max_length=64, examples=["Europe/Berlin"]),
    AfterValidator(_zone),
]
"""An IANA time zone name."""


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _instant_text(value: object) -> object:
    """Refuse numbers (and numeric text): pydantic would read them as Unix seconds."""
    if isinstance(value, datetime) or (isinstance(value, str) and _DATE.match(value)):
        return value
    raise ValueError("an instant is ISO 8601 text with an offset, e.g. 2026-01-01T09:00:00+01:00")


Instant = Annotated[
    AwareDatetime,
    BeforeValidator(_instant_text),
    Field(description="ISO 8601 with an offset, e.g. 2026-01-01T09:00:00+01:00"),
]
"""An instant in time: an offset is required, so no timestamp is ambiguous."""
