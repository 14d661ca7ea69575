"""The operator's capability registry, read from `CADENZA_CAPABILITIES_FILE` when a process
starts (never at import time) and handed to the engine and the routes as records."""

from __future__ import annotations

import json

from api.settings import Settings
from engine.capabilities.specs import (
    CapabilityConfigError,
    CapabilityPolicy,
    specs_from_json,
)


def capability_policy(settings: Settings) -> CapabilityPolicy:
    """The registry and the bounds on calls; CapabilityConfigError naming the file and entry."""
    path = settings.capabilities_file
    try:
        specs = () if path is None else specs_from_json(json.loads(path.read_text("utf-8")))
        return CapabilityPolicy(
            specs=specs,
            signing_key=settings.capability_signing_key,
            max_calls_per_run=settings.capability_max_calls_per_run,
            max_calls_per_minute=settings.capability_max_calls_per_minute,
        )
    except (OSError, ValueError) as exc:
        raise CapabilityConfigError(f"capability registry {path}: {exc}") from None
