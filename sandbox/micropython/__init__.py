"""The `micropython` runtime: MicroPython compiled to WASI, in wasmtime, in confined workers."""
