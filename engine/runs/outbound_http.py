"""`ctx.http.request(method, url, headers, body)`: HTTP made by the engine for a script.

The sandbox has no network at all; a script asks, and the engine decides. A request goes out
only to an origin on the tenant's allow-list (`tenants.http_allowlist`), within the operator's
policy (`engine.config.HttpPolicy`): its host is resolved once, refused if any address is
loopback, private, link-local or otherwise not public (unless the operator allows it), and the
connection goes to the address that was checked (`engine.webhooks.webhook_http.pin`), so DNS
rebinding cannot move it. Redirects are followed only to URLs that pass the same checks. The
time a call may take is what is left of the run; a response body larger than the policy's cap
is refused, not cut.

A header value may name a secret as `{{secret:NAME}}` (`ctx.secret_ref(NAME)`): the engine puts
the value in, the script never holds it, and the response it gets back is redacted of it.
Every request carries `Idempotency-Key: <occurrence id>/<call index>`: a retried occurrence
that makes its calls in the same order presents the same keys, so a receiver can de-duplicate
(the call itself is at least once: a run may be repeated after a crash). Each call is recorded
on the run (`CallRecord`): method, host, status, duration, bytes; never a payload.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.config import HttpPolicy
from engine.domain.records import CallRecord
from engine.runs.deadline import RunDeadline
from engine.runs.script_secrets import ScriptSecrets
from engine.webhooks.webhook_http import Pinned, WebhookRefused, new_client, pin, read_capped
from tenants import http_allowlist

IDEMPOTENCY_HEADER = "Idempotency-Key"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})
#: Headers the engine sets itself: a script's own are refused.
RESERVED_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", IDEMPOTENCY_HEADER.lower()}
)
_SECRET_REF = re.compile(r"\{\{secret:([^{}]{1,64})\}\}")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Answer:
    """A response as the script receives it."""

    status: int
    headers: dict[str, str]
    body: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class OutboundHttp:
    """The HTTP calls of one run of one tenant."""

    def __init__(
        self,
        db: AsyncEngine,
        tenant_id: str,
        policy: HttpPolicy,
        secrets: ScriptSecrets,
        occurrence_id: str,
        deadline: RunDeadline,
    ) -> None:
        self._db, self._tenant_id, self._policy = db, tenant_id, policy
        self._secrets, self._occurrence_id, self._deadline = secrets, occurrence_id, deadline
        self._allowlist: list[str] | None = None
        self.records: list[CallRecord] = []

    async def request(
        self, method: str, url: str, headers: dict[str, str], body: str | None
    ) -> dict[str, Any]:
        """Send the request; ValueError (the script's HostError) when it may not, or failed."""
        if len(self.records) >= self._policy.max_calls_per_run:
            raise ValueError(
                f"made more than {self._policy.max_calls_per_run} HTTP calls in one run"
            )
        index, started = len(self.records), time.monotonic()
        host, status, received, error = "", None, 0, None
        try:
            host = _parse(url).host
            sent = await self._headers(headers, index)
            answer = await self._follow(method.upper(), url, sent, body)
            status, received = answer.status, len(answer.body.encode())
            return self._redacted(answer).to_json()
        except ValueError as exc:
            error = str(exc)
            raise
        finally:
            duration_ms = round((time.monotonic() - started) * 1000, 3)
            size = len((body or "").encode())
            self.records.append(
                CallRecord("http", method.upper(), host, status, duration_ms, size, received, error)
            )

    async def _headers(self, headers: dict[str, str], index: int) -> dict[str, str]:
        reserved = sorted(name for name in headers if name.lower() in RESERVED_HEADERS)
        if reserved:
            raise ValueError(f"the engine sets these headers itself: {', '.join(reserved)}")
        filled = {name: await self._fill(value) for name, value in headers.items()}
        return filled | {IDEMPOTENCY_HEADER: f"{self._occurrence_id}/{index}"}

    async def _fill(self, value: str) -> str:
        """`value` with each `{{secret:NAME}}` replaced by the secret's value."""
        for name in set(_SECRET_REF.findall(value)):
            secret = await self._secrets.get(name)
            if secret is None:
                raise ValueError(f"no secret {name!r} for this tenant: PUT /v1/secrets/{name}")
            value = value.replace(f"{{{{secret:{name}}}}}", secret)
        return value

    async def _follow(
        self, method: str, url: str, headers: dict[str, str], body: str | None
    ) -> Answer:
        for _ in range(self._policy.max_redirects + 1):
            answer = await self._send(method, await self._checked(url), headers, body)
            location = answer.headers.get("location")
            if answer.status not in _REDIRECTS or location is None:
                return answer
            url = _redirected(url, location)
            if answer.status == 303 or (answer.status < 303 and method == "POST"):
                method, body = "GET", None
        raise ValueError(f"more than {self._policy.max_redirects} redirects")

    async def _checked(self, url: str) -> Pinned:
        """The URL pinned to its checked address, if the allow-list and the policy allow it."""
        parsed = _parse(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        allowed = parsed.scheme in self._policy.schemes and http_allowlist.allows(
            await self._entries(), parsed.scheme, parsed.host, port
        )
        if not allowed:
            raise ValueError(
                f"{parsed.scheme}://{parsed.host}:{port} is not on this tenant's HTTP "
                "allow-list: an admin adds it with PUT /v1/http-allowlist"
            )
        try:
            return await pin(url, self._policy.allow_private, "HTTP request")
        except WebhookRefused as exc:
            raise ValueError(str(exc)) from None
        except OSError as exc:
            raise ValueError(f"cannot resolve {parsed.host}: {exc}") from None

    async def _entries(self) -> list[str]:
        if self._allowlist is None:
            async with self._db.connect() as conn:
                self._allowlist = await http_allowlist.get(conn, self._tenant_id)
        return self._allowlist

    async def _send(
        self, method: str, pinned: Pinned, headers: dict[str, str], body: str | None
    ) -> Answer:
        timeout_s = self._deadline.left_s()
        if timeout_s <= 0:
            raise ValueError("no time is left in this run for an HTTP call")
        try:
            async with new_client() as client:
                request = client.build_request(
                    method,
                    pinned.url,
                    headers={"Host": pinned.host_header, **headers},
                    content=body,
                    timeout=timeout_s,
                    extensions={"sni_hostname": pinned.host},
                )
                response = await client.send(request, stream=True)
                try:
                    content = await read_capped(response, self._policy.max_response_bytes)
                finally:
                    await response.aclose()
        except httpx.HTTPError as exc:
            raise ValueError(f"HTTP {method} {pinned.host} failed: {type(exc).__name__}") from None
        headers = {k.lower(): v for k, v in response.headers.items()}
        return Answer(response.status_code, headers, content.decode("utf-8", "replace"))

    def _redacted(self, answer: Answer) -> Answer:
        """`answer` without the value of any secret this run used (a server may echo it)."""
        redact = self._secrets.redactor().text
        headers = {name: redact(value) for name, value in answer.headers.items()}
        return Answer(answer.status, headers, redact(answer.body))


def _parse(url: str) -> httpx.URL:
    try:
        return httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"HTTP URL {url[:200]!r} is not valid: {exc}") from None


def _redirected(url: str, location: str) -> str:
    try:
        return str(_parse(url).join(location))
    except httpx.InvalidURL:
        raise ValueError(f"redirected to an invalid URL {location[:200]!r}") from None
