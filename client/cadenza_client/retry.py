"""When the client repeats a request, and after how long: a pure decision, no I/O.

- **429 Too Many Requests** is repeated for every call, after the `Retry-After` the server sent:
  the server refused it before doing anything.
- **A connection that could not be opened** (refused, connect timeout, no pooled connection in
  time) is repeated for every call: nothing was sent.
- **A connection that broke after the request went out**, a read timeout, or a **503** are
  repeated only for idempotent calls (GET, PUT, DELETE, and POSTs that change nothing or carry
  an idempotency key): the first attempt may have taken effect.

Waits grow exponentially with jitter from `backoff_s` to `backoff_max_s`; a `Retry-After`
longer than `max_retry_after_s` is not waited for: the error is raised at once, carrying it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx

from cadenza_client.call import Call
from cadenza_client.problems import retry_after_s

Reply = httpx.Response | httpx.TransportError
"""What one attempt ended with: an answer, or the transport error instead of one."""

#: Raised before the request was sent: repeating it cannot repeat an effect.
NOTHING_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
#: Raised after the request may have arrived: repeat idempotent calls only.
MAYBE_SENT = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError, httpx.TimeoutException)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to repeat a request (`RetryPolicy(max_retries=0)`: never)."""

    max_retries: int = 3
    backoff_s: float = 0.5
    backoff_max_s: float = 8.0
    max_retry_after_s: float = 60.0

    def delay_s(self, call: Call[object], reply: Reply, retries: int) -> float | None:
        """Seconds to wait before repeating `call` after `reply`, or None to stop here."""
        if retries >= self.max_retries:
            return None
        if isinstance(reply, httpx.Response):
            return self._after_answer(call, reply, retries)
        if isinstance(reply, NOTHING_SENT) or (
            isinstance(reply, MAYBE_SENT) and call.is_idempotent
        ):
            return self.backoff(retries)
        return None

    def _after_answer(
        self, call: Call[object], reply: httpx.Response, retries: int
    ) -> float | None:
        status = reply.status_code
        if status in call.answers or status not in {429, 503}:
            return None
        if status == 503 and not call.is_idempotent:
            return None
        asked_s = retry_after_s(reply)
        if asked_s is None:
            return self.backoff(retries)
        return asked_s if asked_s <= self.max_retry_after_s else None

    def backoff(self, retries: int) -> float:
        """The wait before retry number `retries + 1`: doubling, capped, half of it random."""
        full_s = min(self.backoff_s * 2.0**retries, self.backoff_max_s)
        return full_s / 2 + random.uniform(0, full_s / 2)
