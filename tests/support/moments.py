"""The instant the engine tests' manual clock starts at (a Monday, 09:00 UTC)."""

from __future__ import annotations

from datetime import UTC, datetime

START = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
