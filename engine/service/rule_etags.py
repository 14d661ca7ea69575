"""Which versions an `If-Match` may name and still be current.

A pause or a resume makes a new version of the rule (its pending actions of the old version
must never run as if nothing happened), but it changes nothing an editor read: so an ETag read
before a pause still guards an edit after it. Only an edit, which changes what the rule is, makes
older ETags stale. `rules.edited_version` is the version the last edit made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import RowMapping

#: The one field a pause or a resume changes.
_TOGGLE = frozenset({"enabled"})


def is_current(rule: RowMapping, expected_version: int | None) -> bool:
    """Whether `expected_version` (None: no If-Match) still names what `rule` is."""
    if expected_version is None:
        return True
    return int(rule["edited_version"]) <= expected_version <= int(rule["version"])


def is_edit(changes: Mapping[str, Any]) -> bool:
    """Whether `changes` change what the rule is, rather than only pause or resume it."""
    return not set(changes) <= _TOGGLE
