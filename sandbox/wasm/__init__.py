"""The `wasm` runtime: a tenant's WebAssembly module in wasmtime, in confined worker processes."""
