"""A missing part (the PostgreSQL binaries, Chromium) fails its tests, in CI and elsewhere: a
skipped test proves nothing, and `./scripts/test` installs both with apt-get where it can."""

from __future__ import annotations

from typing import NoReturn

import pytest


def missing(reason: str) -> NoReturn:
    """Fail for `reason`, saying how to get the part."""
    pytest.fail(f"{reason}: install it (./scripts/test does, with apt-get, when run as root)")
