"""A real sandbox (zygote, workers, wasmtime) shared by the tests of one module."""

from support.sandbox_fixtures import context, run, sandbox, wasm_cache  # noqa: F401  (fixtures)
