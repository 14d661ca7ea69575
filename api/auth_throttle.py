"""Failed authentications are limited per client address, so keys and the operator token
cannot be guessed as fast as the server answers.

Each client address may fail `auth_failures_per_minute` times a minute (a bucket, see
`api.ratelimit`); past that, every request it authenticates is answered 429 with Retry-After
until its bucket refills, valid credential or not (else a guess could be confirmed while
throttled). Other addresses are not affected. IPv6 clients count per /64, the block one
subscriber usually holds. The address is the one uvicorn reports: behind a proxy, set
`FORWARDED_ALLOW_IPS` so that it is the client's, not the proxy's.
"""

from __future__ import annotations

import ipaddress
import logging
import re

from fastapi import Request

from api.errors import AuthThrottled
from api.metrics import AUTH_FAILURES, AUTH_THROTTLED
from api.ratelimit import Buckets, TokenBuckets
from tenants.keys import KEY_PREFIX

log = logging.getLogger("cadenza.api")
#: The characters of an API key that may be logged (its public prefix, as `GET /v1/keys` lists).
LOGGED_PREFIX_CHARS = 12
_KEY_SHAPE = re.compile(rf"{KEY_PREFIX}[A-Za-z0-9_-]{{8}}")


def client_of(request: Request) -> str:
    """The throttled unit: the client's IPv4 address, or its IPv6 /64."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def prefix_of(secret: str) -> str:
    """What of a presented API key may appear in a log: its public prefix, or nothing."""
    head = secret[:LOGGED_PREFIX_CHARS]
    return head if _KEY_SHAPE.fullmatch(head) else "(not an API key)"


class AuthThrottle:
    """Buckets of failed authentications by client address."""

    def __init__(self, failures_per_minute: int, buckets: Buckets | None = None) -> None:
        self._per_minute = failures_per_minute
        self._buckets = buckets or TokenBuckets()

    def check(self, client: str, credential: str) -> None:
        """Refuse (AuthThrottled) a client that failed too often lately."""
        wait_s = self._buckets.wait_s(client, self._per_minute)
        if wait_s is not None:
            AUTH_THROTTLED.labels(credential=credential).inc()
            raise AuthThrottled(wait_s, self._per_minute)

    def failed(self, client: str, credential: str, shown: str) -> None:
        """Count a failure of `client`; `shown` is what of the credential may be logged."""
        AUTH_FAILURES.labels(credential=credential).inc()
        throttled = self._buckets.take(client, self._per_minute) is not None
        log.warning(
            "failed authentication from %s with %s %s%s",
            client,
            credential.replace("_", " "),
            shown,
            "; this client is now throttled" if throttled else "",
        )
