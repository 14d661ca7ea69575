"""A text being written: its parts, and the parts it could not put into words."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.recurrence import wording as w


@dataclass
class Words:
    """A text being written, and the parts it could not put into words."""

    parts: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)

    def text(self) -> str:
        return " ".join(self.parts)


def bounded(items: list[str], words: Words, part: str, limit: int = w.MAX_LISTED) -> list[str]:
    """`items`, or when there are too many the first few and a count (the text incomplete)."""
    if len(items) <= limit:
        return items
    words.left_out.append(f"{part} lists {len(items)} values")
    return [*items[: limit // 2], f"{len(items) - limit // 2} more"]
