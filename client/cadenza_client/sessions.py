"""The two thin transports: they send what `exchange` asks for, one blocking, one async.

Neither decides anything: retries, errors and reading answers are `exchange`'s, and the
cursor of the next page is `following`'s. A session owns its httpx client.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar, cast

import httpx

from cadenza_client.call import Call, Paged, following
from cadenza_client.exchange import Step, Steps, Wait, exchange
from cadenza_client.retry import Reply, RetryPolicy

T = TypeVar("T")
X = TypeVar("X")

USER_AGENT = "cadenza-client/0.1.0"


def http_options(base_url: str, key: str | None, timeout_s: float) -> dict[str, Any]:
    """What both httpx clients are made with: the server, the bearer key, a timeout."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return {"base_url": base_url, "headers": headers, "timeout": timeout_s}


class SyncSession:
    """Sends calls with a blocking httpx client, sleeping between retries."""

    def __init__(self, http: httpx.Client, retry: RetryPolicy) -> None:
        self._http = http
        self._retry = retry

    def send(self, call: Call[T]) -> T:
        steps = exchange(call, call.request(self._http), self._retry)
        reply: Reply | None = None
        while True:
            try:
                step = steps.send(reply)
            except StopIteration as done:
                return cast(T, done.value)
            reply = self._perform(step)

    def _perform(self, step: Step) -> Reply | None:
        if isinstance(step, Wait):
            time.sleep(step.seconds)
            return None
        try:
            return self._http.send(step)
        except httpx.TransportError as exc:
            return exc

    def iterate(self, call: Call[Paged[X]]) -> Iterator[X]:
        """Every item of every page, fetching the next page only when it is reached."""
        next_call: Call[Paged[X]] | None = call
        while next_call is not None:
            page = self.send(next_call)
            yield from page.items
            next_call = following(next_call, page)

    def close(self) -> None:
        self._http.close()


class AsyncSession:
    """Sends calls with an async httpx client, sleeping between retries without blocking."""

    def __init__(self, http: httpx.AsyncClient, retry: RetryPolicy) -> None:
        self._http = http
        self._retry = retry

    async def send(self, call: Call[T]) -> T:
        steps: Steps[T] = exchange(call, call.request(self._http), self._retry)
        reply: Reply | None = None
        while True:
            try:
                step = steps.send(reply)
            except StopIteration as done:
                return cast(T, done.value)
            reply = await self._perform(step)

    async def _perform(self, step: Step) -> Reply | None:
        if isinstance(step, Wait):
            await asyncio.sleep(step.seconds)
            return None
        try:
            return await self._http.send(step)
        except httpx.TransportError as exc:
            return exc

    async def iterate(self, call: Call[Paged[X]]) -> AsyncIterator[X]:
        """Every item of every page, fetching the next page only when it is reached."""
        next_call: Call[Paged[X]] | None = call
        while next_call is not None:
            page = await self.send(next_call)
            for item in page.items:
                yield item
            next_call = following(next_call, page)

    async def close(self) -> None:
        await self._http.aclose()
