"""The whole life of one call, without I/O: send, maybe wait and send again, read the answer.

`exchange` is a generator the sessions drive: it yields the request to send (or a `Wait`),
receives what came back (an answer or a transport error), and finally returns the call's
result or raises its error. The sync and async sessions differ only in how they send and
sleep, so retries, errors and parsing are written once.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import TypeVar

import httpx
from pydantic import ValidationError

from cadenza_client.call import Call
from cadenza_client.errors import TransportFailed, UnexpectedAnswer
from cadenza_client.problems import problem_from
from cadenza_client.retry import Reply, RetryPolicy

T = TypeVar("T")
log = logging.getLogger("cadenza_client")


@dataclass(frozen=True)
class Wait:
    """Sleep this long before the next attempt."""

    seconds: float


Step = httpx.Request | Wait
Steps = Generator[Step, Reply | None, T]


def exchange(call: Call[T], request: httpx.Request, policy: RetryPolicy) -> Steps[T]:
    """Send `request` until an attempt settles `call`, as `policy` allows; return its result."""
    retries = 0
    while True:
        reply = yield request
        assert reply is not None, "a session answers every request it was given"
        delay_s = policy.delay_s(call, reply, retries)
        if delay_s is None:
            return settle(call, reply, attempts=retries + 1)
        retries += 1
        log.info(
            "retry %d of %s %s in %.2f s after %s",
            retries,
            call.method,
            call.path,
            delay_s,
            _what(reply),
        )
        yield Wait(delay_s)


def settle(call: Call[T], reply: Reply, *, attempts: int) -> T:
    """The call's result from its last reply, or the error that reply means."""
    if isinstance(reply, httpx.TransportError):
        raise TransportFailed(
            f"{call.method} {call.path}: {_what(reply)} (after {attempts} attempt(s))",
            attempts=attempts,
        ) from reply
    if not (reply.is_success or reply.status_code in call.answers):
        raise problem_from(reply)
    try:
        return call.answer(reply)
    except ValidationError as exc:
        raise UnexpectedAnswer(
            f"{call.method} {call.path} answered {reply.status_code} with a body this client "
            f"cannot read: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"
        ) from exc


def _what(reply: Reply) -> str:
    if isinstance(reply, httpx.Response):
        return f"{reply.status_code} {reply.reason_phrase}"
    return f"{type(reply).__name__}: {reply}" if str(reply) else type(reply).__name__
