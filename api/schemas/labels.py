"""Labels as the API states them: the patterns and the bounds of `engine.domain.labels`, in
the OpenAPI document so a client knows them before it sends anything."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from engine.domain.labels import KEY_PATTERN, MAX_LABELS, VALUE_PATTERN

LabelKey = Annotated[str, StringConstraints(pattern=KEY_PATTERN, max_length=63)]
LabelValue = Annotated[str, StringConstraints(pattern=VALUE_PATTERN, max_length=63)]

Labels = Annotated[
    dict[LabelKey, LabelValue],
    Field(
        max_length=MAX_LABELS,
        description=f"key: value pairs to select the rule by (at most {MAX_LABELS}).",
        examples=[{"team": "ops", "case": "123"}],
    ),
]
