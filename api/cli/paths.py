"""Where the command line keeps files of its own (not the database)."""

from __future__ import annotations

import os
from pathlib import Path


def sandbox_cache_dir() -> Path:
    """Where the sandbox keeps the compiled MicroPython interpreter between processes, per
    user: compiling it costs a new process seconds of CPU."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cadenza" / "wasm"
