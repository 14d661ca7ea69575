"""Capabilities performed in-process, as an embedding product declares them (entry points of
the `cadenza.capabilities` group, see the `.dist-info` beside this file)."""

from __future__ import annotations

from typing import Any

from engine.capabilities import CapabilityFailed, CapabilityRequest


async def echo(request: CapabilityRequest) -> dict[str, Any]:
    """Everything the capability was told, back."""
    return request.to_json() | {"idempotency_key": request.idempotency_key}


async def explode(request: CapabilityRequest) -> Any:
    """A bug of the embedding product."""
    raise RuntimeError("a bug in the product")


async def refuse(request: CapabilityRequest) -> Any:
    """A refusal with a reason for the script."""
    raise CapabilityFailed("this shop has no such customer")
