"""A tenant the client tests made: its id, name and a key per role (tests/client/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

from cadenza_client import Role


@dataclass(frozen=True)
class Tenant:
    """A fresh tenant: its id, name and a key per role."""

    id: str
    name: str
    keys: dict[Role, str]
