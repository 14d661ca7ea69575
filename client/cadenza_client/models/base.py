"""The two kinds of record the client exchanges: what the server answers, what it is sent.

Answers ignore fields this client does not know yet, so a newer server never breaks an older
client; inputs refuse unknown fields, so a typo fails here rather than as a 422 later. Both are
frozen: a record read from the server is a value, never a handle that changes.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Record(BaseModel):
    """Something the server answered."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class Input(BaseModel):
    """Something the client sends; only the fields set are sent, so the server's defaults apply."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def body(self) -> dict[str, Any]:
        """The JSON body: the fields given, nothing defaulted here."""
        return self.model_dump(mode="json", exclude_unset=True)


class Page(Record, Generic[T]):
    """One page of a list; `next_cursor` continues it (None: this was the last page)."""

    items: tuple[T, ...]
    next_cursor: str | None = None

    def continuation(self) -> str | None:
        """The cursor of the next page, if there is one."""
        return self.next_cursor
