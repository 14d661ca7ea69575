"""What every schema shares: strict inputs, aware timestamps, time zone names checked early."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.zones import NEEDS_OFFSET, load_zone, parse_aware


class Input(BaseModel):
    """A request body: unknown fields are refused, so a typo never silently does nothing.

    Text must be storable: no unpaired surrogates anywhere (they cannot be encoded as UTF-8),
    and no NUL in text fields (PostgreSQL cannot store it in text). Fields named in
    `nul_allowed` (JSON documents stored as JSON) may hold NUL.
    """

    model_config = ConfigDict(extra="forbid")
    nul_allowed: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="after")
    @classmethod
    def _storable_text(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and "\x00" in value and info.field_name not in cls.nul_allowed:
            raise ValueError(f"contains a NUL character at position {value.index(chr(0))}")
        if (bad := _unencodable(value)) is not None:
            raise ValueError(f"text {bad[:20]!r} holds an unpaired surrogate: send valid Unicode")
        return value


def _unencodable(value: Any) -> str | None:
    """The first string inside `value` that is not valid Unicode (walked without recursion)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode()
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


class Public(BaseModel):
    """A response body, built from our records (dataclasses) by attribute."""

    model_config = ConfigDict(from_attributes=True)


def public_copy(name: str, doc: str, *parts: type[BaseModel], **replaced: Any) -> type[Public]:
    """A response body with the fields of `parts`, in order, as they are declared there (type,
    bounds, documentation), except those `replaced` (name=(type, default)).

    It is a `Public`, not an `Input`: the answer is built from records the engine checked on
    the way in, and `Input`'s checks on every field of every item again cost most of a list
    page's time (decision 131).
    """
    fields: dict[str, Any] = {}
    for part in parts:
        for field_name, info in part.model_fields.items():
            fields[field_name] = replaced.get(field_name) or (info.annotation, info._copy())
    return create_model(name, __base__=Public, __doc__=doc, **fields)


#: The pydantic error type of a bad time zone: answered as `invalid-schedule`, as the engine
#: and the preview answer a bad schedule (`api.problems`).
SCHEDULE_ERROR = "invalid_schedule"


#: What an IANA zone name looks like (every name of the tz database matches it): stated in the
#: OpenAPI document so a generated client or a fuzzer knows, and checked with the zone itself.
ZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+/-]*$"


def _zone(name: str) -> str:
    try:
        if not re.fullmatch(ZONE_PATTERN, name):
            raise InvalidSchedule(name, f"{name!r} is not an IANA time zone name")
        load_zone(name)
    except InvalidSchedule as exc:
        raise PydanticCustomError(SCHEDULE_ERROR, str(exc)) from exc
    return name


TimeZone = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        examples=["Europe/Berlin"],
        json_schema_extra={"pattern": ZONE_PATTERN},
    ),
    AfterValidator(_zone),
]
"""An IANA time zone name; a bad one is an `invalid-schedule` problem, as the engine answers."""


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _representable(value: datetime) -> datetime:
    """Refuse instants that exist only in their own offset (year 1 or 9999 at the edges)."""
    try:
        value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("is out of range once converted to UTC: use years 2..9998") from exc
    return value


def _instant_text(value: object) -> object:
    """Refuse numbers (and numeric text: pydantic would read them as Unix seconds) and times
    without an offset, with the words `cadenza preview --after` uses."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and _DATE.match(value):
        return parse_aware(value)
    raise ValueError(NEEDS_OFFSET)


Instant = Annotated[
    AwareDatetime,
    BeforeValidator(_instant_text),
    AfterValidator(_representable),
    Field(description="ISO 8601 with an offset, e.g. 2026-01-01T09:00:00+01:00"),
]
"""An instant in time: an offset is required, so no timestamp is ambiguous."""
