"""tests/security runs against the same real sandbox as tests/sandbox: reuse its fixtures
(the project root goes first so that tests/sandbox/ cannot shadow the `sandbox` package)."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS.parent), str(TESTS / "sandbox")]

from sandbox_fixtures import context, run, sandbox, wasm_cache  # noqa: E402, F401
