"""Token buckets: per tenant for requests, per client address for failed authentications.

A bucket holds a minute's allowance and refills continuously at that rate, so a tenant (or a
client) may burst up to a minute's allowance and then proceeds at its steady rate. Without a
token the answer is 429 with `Retry-After` (whole seconds until one token is back). Buckets
live in this process's memory, or, for the API processes of one `serve`, in a file they share
(`api.shared_buckets`): with N machines behind a balancer an effective limit is up to N times
the configured one, the usual trade for not touching the database on every request. The
number of buckets is bounded: past `max_keys`, the least recently used goes (a full bucket's key
loses nothing by being forgotten).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from api.errors import RateLimited

MAX_KEYS = 100_000


class Buckets(Protocol):
    """Where buckets are kept: `TokenBuckets` (this process) or `SharedTokenBuckets`."""

    def take(self, key: str, per_minute: int) -> int | None: ...

    def wait_s(self, key: str, per_minute: int) -> int | None: ...


def refilled(tokens: float, elapsed_s: float, per_minute: int) -> tuple[float, float]:
    """A bucket's tokens after `elapsed_s` of refilling, and its rate in tokens per second."""
    capacity = float(max(per_minute, 1))
    rate_per_s = capacity / 60.0
    return min(capacity, tokens + max(elapsed_s, 0.0) * rate_per_s), rate_per_s


def wait_for(tokens: float, rate_per_s: float) -> int | None:
    """Whole seconds until a bucket holding `tokens` has one, or None if it has one now."""
    if tokens >= 1.0:
        return None
    return max(1, math.ceil((1.0 - tokens) / rate_per_s))


@dataclass
class _Bucket:
    tokens: float
    updated_s: float


class TokenBuckets:
    """Buckets by key; `monotonic_s` is injectable for tests of the arithmetic."""

    def __init__(
        self, monotonic_s: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS
    ) -> None:
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._now_s = monotonic_s
        self._max_keys = max_keys

    def take(self, key: str, per_minute: int) -> int | None:
        """Take one token for `key`: None if there was one, else the seconds until one is back."""
        bucket = self._bucket(key, per_minute)
        now_s = self._now_s()
        bucket.tokens, rate_per_s = refilled(bucket.tokens, now_s - bucket.updated_s, per_minute)
        bucket.updated_s = now_s
        wait_s = wait_for(bucket.tokens, rate_per_s)
        if wait_s is None:
            bucket.tokens -= 1.0
        return wait_s

    def wait_s(self, key: str, per_minute: int) -> int | None:
        """Seconds until `key` has a token again, or None if it has one now (none is taken,
        nothing changes: only `take` writes a bucket, as in `api.shared_buckets`)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return None  # a bucket never taken from is full
        tokens, rate_per_s = refilled(bucket.tokens, self._now_s() - bucket.updated_s, per_minute)
        return wait_for(tokens, rate_per_s)

    def _bucket(self, key: str, per_minute: int) -> _Bucket:
        """`key`'s bucket, made full if it has none, as the most recently used."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(max(per_minute, 1)), self._now_s())
            if len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
        self._buckets.move_to_end(key)
        return bucket


class RateLimiter:
    """Requests per minute of each tenant (its `requests_per_minute` quota)."""

    def __init__(self, buckets: Buckets | None = None) -> None:
        self._buckets = buckets or TokenBuckets()

    def hit(self, tenant_id: str, per_minute: int) -> None:
        """Take one token for `tenant_id`, or raise RateLimited with the wait in seconds."""
        retry_after_s = self._buckets.take(tenant_id, per_minute)
        if retry_after_s is not None:
            raise RateLimited(retry_after_s, per_minute)
