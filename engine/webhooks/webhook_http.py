"""Calling a webhook URL safely: resolve its host once, refuse private addresses (unless the
operator allows them), and send the request to the address that was checked.

The request goes to that address with the URL's Host header and, over TLS, its name for SNI
and certificate verification: a DNS answer that changes between the check and the connection
(DNS rebinding) cannot redirect the request. So connections are not kept alive (one could
otherwise serve a later request to another host name on the same address) and proxy
variables are ignored.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass

import httpx


class WebhookRefused(Exception):
    """The webhook URL may not be called: the message says why."""


@dataclass(frozen=True)
class Pinned:
    """A webhook request bound to the address that was checked."""

    url: httpx.URL
    """The URL with its host replaced by the address."""
    host: str
    """The original URL's host (IDNA), for SNI and the certificate check."""
    host_header: str
    """The original URL's host and port, as the Host header."""


async def pin(url: str, allow_private: bool, what: str = "webhook") -> Pinned:
    """Resolve the URL's host once; refuse non-HTTP URLs and, unless allowed, a host with any
    non-public address. Raises OSError when the host does not resolve (worth retrying).
    `what` names the URL's use in messages (a webhook, a script's HTTP request)."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise WebhookRefused(f"{what} URL {url[:200]!r} is not valid: {exc}") from exc
    if parsed.scheme not in {"http", "https"} or not parsed.raw_host:
        raise WebhookRefused(f"{what} URL {url[:200]!r} is not an http(s) URL")
    host = parsed.raw_host.decode("ascii")
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, parsed.port or (443 if parsed.scheme == "https" else 80), type=socket.SOCK_STREAM
    )
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    private = next((a for a in addresses if not _is_public(a)), None)
    if private is not None and not allow_private:
        raise WebhookRefused(
            f"{host} resolves to {private}, a private or local address; "
            f"the operator must allow private addresses for {what}s to use it"
        )
    return Pinned(parsed.copy_with(host=str(addresses[0])), host, parsed.netloc.decode("ascii"))


def _is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is public; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, which the
    kernel connects over IPv4) is judged as its IPv4 address, since Python's IPv6 table calls
    some mapped non-public ones (100.64.0.0/10, shared and cloud metadata space) global."""
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return (mapped or address).is_global


async def post_pinned(
    client: httpx.AsyncClient,
    pinned: Pinned,
    body: bytes,
    headers: Mapping[str, str],
    timeout_s: float,
) -> httpx.Response:
    """POST to the pinned address as if to the original URL's host."""
    return await client.post(
        pinned.url,
        content=body,
        headers={"Host": pinned.host_header, **headers},
        timeout=timeout_s,
        extensions={"sni_hostname": pinned.host},
    )


async def read_capped(response: httpx.Response, cap_bytes: int, what: str = "response") -> bytes:
    """The body, decoded (gzip and the like); ValueError past `cap_bytes` (refused, not cut)."""
    content = b""
    async for chunk in response.aiter_bytes():
        content += chunk
        if len(content) > cap_bytes:
            raise ValueError(f"the {what} body is larger than {cap_bytes} bytes")
    return content


def new_client() -> httpx.AsyncClient:
    """A client for pinned requests: no redirects, no proxies, no connection kept alive."""
    return httpx.AsyncClient(
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    )
