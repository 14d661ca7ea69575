"""Opaque, prefixed ids (`t_…` tenant, `r_…` rule, `k_…` key): readable in logs, unguessable."""

from __future__ import annotations

import secrets

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32: no i, l, o, u


def new_id(prefix: str, length: int = 16) -> str:
    return prefix + "_" + "".join(secrets.choice(_ALPHABET) for _ in range(length))
