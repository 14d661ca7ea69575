"""A request as data: what one client method sends, and how it reads the answer.

Every method of the client is a function that returns a `Call`; the sync and async sessions
only send it. So each route is written once, its path built from the template the OpenAPI
document names (`Route`), and tested for both clients alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_jsonable_python

from cadenza_client.errors import InvalidId

T_co = TypeVar("T_co", covariant=True)
M = TypeVar("M", bound=BaseModel)
X_co = TypeVar("X_co", covariant=True)

Answer = Callable[[httpx.Response], T_co]
QueryValue = str | int | float | bool | datetime | Enum | None
#: A repeated parameter (`label=a=1&label=b=2`) is a tuple of its values.
QueryValues = QueryValue | tuple[str, ...]


class EncodedPath(str):
    """A path parameter already percent-encoded (a key-value key keeps its `/`)."""


def segment(value: str | int) -> str:
    """`value` as one path segment; ids never hold `/`, so one that does is a mistake here."""
    text = str(value)
    if not text or "/" in text:
        raise InvalidId(f"{text!r} is not an id: ids are not empty and hold no '/'")
    return quote(text, safe="")


def key_path(key: str) -> EncodedPath:
    """A data key as a path: its `/` kept, everything else (and `.`/`..` segments) encoded."""
    if not key:
        raise InvalidId("a data key is 1-256 characters, not empty")
    parts = [quote(part, safe="") for part in key.split("/")]
    return EncodedPath("/".join(p.replace(".", "%2E") if p in {".", ".."} else p for p in parts))


def _query_text(value: QueryValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _query_pairs(query: Mapping[str, QueryValues]) -> tuple[tuple[str, str], ...]:
    """The query's (name, text) pairs: None left out, a tuple once per value."""
    pairs: list[tuple[str, str]] = []
    for name, value in query.items():
        values = value if isinstance(value, tuple) else (value,)
        pairs.extend((name, _query_text(v)) for v in values if v is not None)
    return tuple(pairs)


@dataclass(frozen=True)
class Call(Generic[T_co]):
    """One request and how to read its answer.

    `is_idempotent` says whether sending it twice has the effect of sending it once: only such
    calls are repeated after a connection broke mid-request. `answers` lists statuses besides
    2xx that are answers rather than errors; `paged_by` names the query parameter that carries
    a continuation cursor, for calls whose answer is one page of a list.
    """

    method: str
    path: str
    answer: Answer[T_co]
    query: tuple[tuple[str, str], ...] = ()
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()
    is_idempotent: bool = False
    answers: frozenset[int] = frozenset()
    paged_by: str | None = None

    def continued(self, cursor: str) -> Call[T_co]:
        """This call for the page at `cursor`."""
        kept = tuple((k, v) for k, v in self.query if k != self.paged_by)
        return dataclasses.replace(self, query=(*kept, (str(self.paged_by), cursor)))

    def request(self, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        """The httpx request, against `http`'s base URL and headers."""
        return http.build_request(
            self.method,
            self.path,
            params=self.query,
            json=self.body,
            headers=dict(self.headers),
        )


@dataclass(frozen=True)
class Route:
    """One route of the API: its method and path template exactly as the OpenAPI names them."""

    method: str
    template: str

    def call(
        self,
        answer: Answer[T_co],
        *,
        path: Mapping[str, str | int] | None = None,
        query: Mapping[str, QueryValues] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        is_idempotent: bool | None = None,
        answers: frozenset[int] = frozenset(),
        paged_by: str | None = None,
    ) -> Call[T_co]:
        """A call of this route; GET, PUT and DELETE are idempotent unless said otherwise."""
        values = {
            name: value if isinstance(value, EncodedPath) else segment(value)
            for name, value in (path or {}).items()
        }
        return Call(
            method=self.method,
            path=self.template.format(**values),
            answer=answer,
            query=_query_pairs(query or {}),
            body=body,
            headers=tuple((headers or {}).items()),
            is_idempotent=(
                self.method in {"GET", "PUT", "DELETE"} if is_idempotent is None else is_idempotent
            ),
            answers=answers,
            paged_by=paged_by,
        )


class Paged(Protocol[X_co]):
    """An answer that is one part of a longer list."""

    @property
    def items(self) -> Sequence[X_co]: ...

    def continuation(self) -> str | None: ...


def following(call: Call[Paged[X_co]], page: Paged[X_co]) -> Call[Paged[X_co]] | None:
    """The call for the part after `page`, or None when `page` was the last."""
    cursor = page.continuation()
    return None if cursor is None or call.paged_by is None else call.continued(cursor)


def reading(model: type[M]) -> Answer[M]:
    """Read the answer's JSON body as `model`."""
    return lambda response: model.model_validate_json(response.content)


def reading_list(model: type[M]) -> Answer[list[M]]:
    """Read the answer's JSON body as a list of `model`."""
    adapter = TypeAdapter(list[model])  # type: ignore[valid-type]
    return lambda response: adapter.validate_json(response.content)


def no_content(response: httpx.Response) -> None:
    """An answer without a body (204)."""


def text(response: httpx.Response) -> str:
    """The answer's body as text."""
    return response.text


def given(**values: Any) -> dict[str, Any]:
    """A JSON body of the values given, so the server's defaults apply to the rest."""
    return {name: to_jsonable_python(v) for name, v in values.items() if v is not None}
