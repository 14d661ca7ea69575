"""What a run prints, captured inside its worker: clean, capped as it is written, mirrored.

Every runtime's `print` ends here. Text is cleaned first (`sandbox.text`), so the bytes
counted are the bytes stored; once the run's output limit is reached the kept part is written
and `on_overflow` ends the run at once (each runtime knows how to stop its script). Every byte
kept is also appended to the worker's output window, which the engine reads if the run is
stopped before it can report (`sandbox.output_window`).
"""

from __future__ import annotations

from collections.abc import Callable

from sandbox.text import clean_text


class Output:
    """One run's stdout."""

    def __init__(
        self, limit_bytes: int, on_overflow: Callable[[], None], mirror: Callable[[bytes], None]
    ) -> None:
        self._parts: list[str] = []
        self._size_bytes = 0
        self._limit_bytes = limit_bytes
        self._on_overflow = on_overflow
        self._mirror = mirror
        self.is_truncated = False

    def write(self, text: str) -> None:
        """Append `text`; past the limit keep what fits, then call `on_overflow`."""
        text = clean_text(text)
        data = text.encode()
        room = self._limit_bytes - self._size_bytes
        if len(data) > room:
            kept = data[:room].decode("utf-8", "ignore")  # never half a character
            self._keep(kept, kept.encode())
            self.is_truncated = True
            self._on_overflow()
            return
        self._keep(text, data)

    def _keep(self, text: str, data: bytes) -> None:
        self._mirror(data)
        self._parts.append(text)
        self._size_bytes += len(data)

    def text(self) -> str:
        return "".join(self._parts)
