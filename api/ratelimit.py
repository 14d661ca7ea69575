"""Per-tenant request rate limiting: a token bucket per tenant, in this process.

The bucket holds `requests_per_minute` tokens and refills continuously at that rate, so a
tenant may burst up to a minute's allowance and then proceeds at its steady rate. A request
without a token gets 429 with `Retry-After` (whole seconds until one token is back). Buckets
live in memory: with N nodes behind a balancer, a tenant's effective limit is up to N times
its quota, which is the usual trade for not touching the database on every request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from api.errors import RateLimited


@dataclass
class _Bucket:
    tokens: float
    updated_s: float


class RateLimiter:
    """Token buckets keyed by tenant id; `monotonic_s` is injectable for tests of the arithmetic."""

    def __init__(self, monotonic_s: Callable[[], float] = time.monotonic) -> None:
        self._buckets: dict[str, _Bucket] = {}
        self._now_s = monotonic_s

    def hit(self, tenant_id: str, per_minute: int) -> None:
        """Take one token for `tenant_id`, or raise RateLimited with the wait in seconds."""
        now_s = self._now_s()
        capacity = float(max(per_minute, 1))
        rate_per_s = capacity / 60.0
        bucket = self._buckets.setdefault(tenant_id, _Bucket(capacity, now_s))
        elapsed_s = max(now_s - bucket.updated_s, 0.0)
        bucket.tokens = min(capacity, bucket.tokens + elapsed_s * rate_per_s)
        bucket.updated_s = now_s
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return
        retry_after_s = max(1, math.ceil((1.0 - bucket.tokens) / rate_per_s))
        raise RateLimited(retry_after_s, per_minute)
