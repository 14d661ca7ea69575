"""A request body limit that answers 413 as problem+json before any handler sees the body.

The body is read (up to the limit) and replayed to the app: API bodies are small JSON
documents, and reading them whole means a chunked upload cannot slip past a Content-Length
check.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import PayloadTooLarge
from api.problems import PROBLEMS, problem_response

#: Bodies up to this many times the limit are read to the end before the 413 is sent.
DRAIN_FACTOR = 8


class BodySizeLimit:
    """ASGI middleware: requests whose body exceeds `max_body_bytes` get 413 and change nothing."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes * DRAIN_FACTOR:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size_bytes = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([], message, receive), send)
                return
            chunk = message.get("body", b"")
            size_bytes += len(chunk)
            if size_bytes > self.max_body_bytes:
                if message.get("more_body", False):
                    await self._drain(receive, size_bytes)
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], None, receive), send)

    async def _drain(self, receive: Receive, size_bytes: int) -> None:
        """Read the rest of a moderately oversized body, so the client sees our 413 instead of
        a connection reset while it is still sending; beyond DRAIN_FACTOR, just hang up."""
        while size_bytes <= self.max_body_bytes * DRAIN_FACTOR:
            message = await receive()
            size_bytes += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body", False):
                return

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = (
            f"the request body is larger than {self.max_body_bytes} bytes: send less "
            "(the operator sets CADENZA_MAX_BODY_BYTES)"
        )
        response = problem_response(PROBLEMS[PayloadTooLarge], detail)
        response.headers["Connection"] = "close"
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(messages: list[Message], pending: Message | None, receive: Receive) -> Receive:
    """A receive that hands out the buffered messages first, then the real stream's."""
    queue = [*messages, *([pending] if pending is not None else [])]

    async def replay() -> Message:
        if queue:
            return queue.pop(0)
        return await receive()

    return replay
