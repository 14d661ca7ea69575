"""tests/security runs against the same real sandbox as tests/sandbox."""

from support.sandbox_fixtures import context, run, sandbox, wasm_cache  # noqa: F401  (fixtures)
