"""Rules: `RuleCreate` in, `RuleUpdate` (every field optional) for PATCH, `RulePublic` out.

Types and bounds are checked here so the OpenAPI document states them; the engine checks the
rest (schedule grammar, the script, quotas) and answers with the field and position.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field, StrictBool, create_model

from api.schemas.calendars import RuleCalendars
from api.schemas.common import Input, Instant, Public, TimeZone, public_copy
from api.schemas.labels import Labels
from api.schemas.preview import Schedule
from engine.domain.records import MisfirePolicy, OverlapPolicy
from engine.recurrence import DstGap, DstRepeat
from sandbox import RuntimeName

#: Longest script: 128 Ki characters, so even fully \u-escaped JSON fits the default body limit.
MAX_CODE_CHARS = 131_072

Code = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_CODE_CHARS,
        description="The script: Python source, MicroPython source, or a WebAssembly module.",
        examples=["def main(ctx):\n    ctx.emit('email', {'to': ctx.params['to']})\n"],
    ),
]


class RuleCreate(Input):
    name: str = Field(min_length=1, max_length=200, examples=["weekday reminder"])
    schedule: Schedule
    code: Code
    runtime: RuntimeName = RuntimeName.PYTHON
    timezone: TimeZone | None = Field(
        None, description="The IANA zone of the schedule; null or absent: the tenant's default."
    )
    description: str = Field("", max_length=2000)
    params: dict[str, Any] = Field(default_factory=dict, description="Passed to the script.")
    enabled: StrictBool = True
    dst_gap: DstGap = DstGap.SHIFT
    dst_repeat: DstRepeat = DstRepeat.FIRST
    misfire_policy: MisfirePolicy = MisfirePolicy.RUN_LATEST
    misfire_grace_s: int | None = Field(None, strict=True, ge=0, le=366 * 86_400)
    overlap_policy: OverlapPolicy = OverlapPolicy.SKIP
    max_attempts: int = Field(strict=True, default=3, ge=1, le=100)
    backoff_s: float = Field(strict=True, default=10, ge=0, le=86_400)
    backoff_max_s: float = Field(strict=True, default=600, ge=0, le=7 * 86_400)
    timeout_ms: int = Field(strict=True, default=5000, ge=1, le=3_600_000)
    memory_mb: int = Field(strict=True, default=128, ge=1, le=65_536)
    priority: int = Field(strict=True, default=0, ge=-1000, le=1000)
    jitter_s: int = Field(strict=True, default=0, ge=0, le=86_400)
    start_at: Instant | None = None
    end_at: Instant | None = None
    calendars: RuleCalendars = Field(default_factory=list)
    labels: Labels = Field(default_factory=dict)

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "name": "weekday reminder",
                    "schedule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9",
                    "timezone": "Europe/Berlin",
                    "code": "def main(ctx):\n    ctx.emit('reminder', {'text': 'stand-up'})\n",
                }
            ]
        }
    }


def _optional_copy() -> dict[str, Any]:
    """RuleCreate's fields, none required: a PATCH changes only what it names.

    The annotations stay as they are, so `null` is refused for fields that cannot be empty.
    """
    out: dict[str, Any] = {}
    for name, info in RuleCreate.model_fields.items():
        copy = info._copy()
        copy.default, copy.default_factory = None, None
        out[name] = (info.annotation, copy)
    return out


if TYPE_CHECKING:

    class RuleUpdate(Input):
        """RuleCreate's fields, every one optional (built at run time by `_optional_copy`)."""

else:
    RuleUpdate = create_model("RuleUpdate", __base__=Input, **_optional_copy())


class _Stored(BaseModel):
    """What the engine adds to a rule's definition."""

    id: str
    version: int = Field(
        description="Bumped on every change; send it back in If-Match (a pause or a resume "
        "leaves an If-Match current)."
    )
    created_at: datetime
    updated_at: datetime
    next_run_at: datetime | None = Field(description="Null when paused or finished.")
    schedule_text: str = Field(description="The schedule in plain English.")
    last_outcome: str | None


if TYPE_CHECKING:

    class RulePublic(Public):
        """RuleCreate's fields and _Stored's (built at run time by `public_copy`)."""

else:
    RulePublic = public_copy(
        "RulePublic",
        "A stored rule, with the engine's view: version, next run and its schedule in English.",
        RuleCreate,
        _Stored,
        timezone=(str, ...),
    )


def zoned(values: dict[str, Any], default_timezone: str) -> dict[str, Any]:
    """`values` (a rule or the changes to one) with a null `timezone` made the tenant's
    default; an absent one stays absent (a change keeps the rule's zone)."""
    if "timezone" in values and values["timezone"] is None:
        return {**values, "timezone": default_timezone}
    return values


class Window(Input):
    start: Instant
    end: Instant
