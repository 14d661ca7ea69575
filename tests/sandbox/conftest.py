"""A real sandbox (zygote, workers, wasmtime) shared by the tests of one module."""

from __future__ import annotations

import sys
from pathlib import Path

# tests/sandbox/ would otherwise shadow the `sandbox` package as a namespace package (pytest
# puts tests/ on sys.path first): put the project root ahead of it, and the shared fixtures
# module (tests/sandbox/sandbox_fixtures.py) on the path.
HERE = Path(__file__).resolve()
sys.path[:0] = [str(HERE.parents[2]), str(HERE.parents[1] / "sandbox")]

from sandbox_fixtures import context, run, sandbox, wasm_cache  # noqa: E402, F401  (fixtures)
