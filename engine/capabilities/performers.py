"""How a call is performed: a signed POST to the host product, or an in-process entry point.

An HTTP endpoint receives the `CapabilityRequest` as JSON, with `Idempotency-Key` and
`X-Cadenza-Signature` (the webhook scheme, `engine.webhooks.signing`, keyed by the operator's
capability signing key), through the same client as a script's HTTP (no redirects, no proxy
variables). The endpoint is operator configuration, so it is neither checked against an
allow-list nor pinned. It answers 2xx with a JSON body; anything else fails the call, with the
endpoint's `{"error": "..."}` text when it gave one. An entry point of the `cadenza.capabilities`
group is an async callable taking the request and returning a JSON value.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import logging
import time
from typing import Any

import httpx

from engine.capabilities.requests import (
    Answered,
    CapabilityFailed,
    CapabilityRequest,
    Implementation,
    Perform,
)
from engine.capabilities.specs import CapabilityConfigError, CapabilitySpec
from engine.webhooks.signing import sign
from engine.webhooks.webhook_http import new_client, read_capped

GROUP = "cadenza.capabilities"
log = logging.getLogger("cadenza.engine")
_ERROR_CHARS = 200


def performer(spec: CapabilitySpec, signing_key: str | None) -> Perform:
    """How calls of `spec` are performed; CapabilityConfigError if its entry point is missing."""
    if spec.url is not None and signing_key is not None:
        url, key = spec.url, signing_key
        return lambda request: _post(url, key, spec.max_answer_bytes, request)
    implementation = load_entry_point(str(spec.entry_point))
    return lambda request: _in_process(implementation, spec.max_answer_bytes, request)


def load_entry_point(name: str) -> Implementation:
    """The entry point `name` of the `cadenza.capabilities` group, loaded."""
    found = list(importlib.metadata.entry_points(group=GROUP, name=name))
    if not found:
        raise CapabilityConfigError(
            f"no entry point {name!r} in group {GROUP!r}: install the package that declares it "
            f"(pyproject: [project.entry-points.{GROUP!r}] {name} = 'module:function')"
        )
    target = found[0].load()
    if not inspect.iscoroutinefunction(target):
        raise CapabilityConfigError(f"entry point {name!r} ({found[0].value}) is not async def")
    implementation: Implementation = target
    return implementation


async def _post(url: str, key: str, cap_bytes: int, request: CapabilityRequest) -> Answered:
    body = json.dumps(request.to_json(), separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": request.idempotency_key,
        "X-Cadenza-Signature": sign([key], int(time.time()), body),
    }
    try:
        async with new_client() as client:
            send = client.stream(
                "POST", url, content=body, headers=headers, timeout=request.timeout_s
            )
            async with send as response:
                try:
                    content = await read_capped(response, cap_bytes, "answer")
                except ValueError as exc:
                    raise CapabilityFailed(str(exc), response.status_code) from None
    except httpx.HTTPError as exc:
        raise CapabilityFailed(f"the host product did not answer ({type(exc).__name__})") from None
    if not 200 <= response.status_code < 300:
        raise CapabilityFailed(_refusal(response.status_code, content), response.status_code)
    return Answered(_decoded(content, response.status_code), response.status_code)


def _refusal(status: int, content: bytes) -> str:
    """What the script is told of a failed call: the status, and the product's reason."""
    try:
        reason = json.loads(content).get("error")
    except (ValueError, AttributeError):
        reason = None
    said = f": {reason[:_ERROR_CHARS]}" if isinstance(reason, str) else ""
    return f"the host product answered HTTP {status}{said}"


def _decoded(content: bytes, status: int) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        raise CapabilityFailed("the host product's answer is not JSON", status) from None


async def _in_process(
    implementation: Implementation, cap_bytes: int, request: CapabilityRequest
) -> Answered:
    try:
        async with asyncio.timeout(request.timeout_s):
            value = await implementation(request)
    except TimeoutError:
        raise CapabilityFailed(f"no answer within {request.timeout_s:.1f} s") from None
    except CapabilityFailed:
        raise
    except Exception as exc:  # the embedder's bug: the run goes on, the operator is told
        log.exception("capability %s failed on %s", request.capability, request.idempotency_key)
        raise CapabilityFailed(f"the capability failed ({type(exc).__name__})") from None
    try:
        size = len(json.dumps(value, allow_nan=False).encode())
    except (TypeError, ValueError) as exc:
        raise CapabilityFailed(f"the capability's answer is not JSON ({exc})") from None
    if size > cap_bytes:
        raise CapabilityFailed(f"the answer body is larger than {cap_bytes} bytes")
    return Answered(value)
