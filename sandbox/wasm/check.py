"""Checking a tenant's WebAssembly module in a throwaway process, under hard limits.

Parsing WAT and compiling can take seconds (or gigabytes) on crafted input, so the first
contact with a new module happens here, in `python -m sandbox.wasm.check`, with CPU and
data-size rlimits and a wall-clock kill from the caller. It reads the module (binary or
WAT) on stdin and prints one JSON line: `{"wasm": "<base64 binary>"}` when the module
compiles and imports only the `cadenza` ABI, else `{"error": "...", "line": n}`.
The engine then compiles the same bytes itself, knowing that this finishes.
"""

from __future__ import annotations

import base64
import json
import re
import resource
import sys

WASM_MAGIC = b"\x00asm"
_KNOWN_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"PK\x03\x04": "a zip archive",
    b"\x7fELF": "an ELF executable",
    b"%PDF": "a PDF document",
}


def to_binary(data: bytes) -> bytes:
    """Binary module bytes from a binary or WAT input; ValueError(message) otherwise."""
    if data.startswith(WASM_MAGIC):
        return data
    for magic, kind in _KNOWN_MAGIC.items():
        if data.startswith(magic):
            raise ValueError(f"this is not a WebAssembly module but {kind}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not a WebAssembly module: no \\0asm header and not WAT text") from None
    import wasmtime

    try:
        return bytes(wasmtime.wat2wasm(text))
    except wasmtime.WasmtimeError as exc:
        raise ValueError(f"WAT does not parse: {str(exc).strip()}") from None


def check(data: bytes) -> dict[str, object]:
    import wasmtime

    from sandbox.wasm import abi as wasm_abi
    from sandbox.wasm.engine import engine_config

    try:
        wasm = to_binary(data)
        module = wasmtime.Module(wasmtime.Engine(engine_config()), wasm)
    except ValueError as exc:
        return {"error": str(exc), "line": _wat_line(str(exc))}
    except wasmtime.WasmtimeError as exc:
        return {"error": f"invalid WebAssembly: {str(exc).strip().splitlines()[0]}"}
    errors = wasm_abi.interface_errors(module)
    if errors:
        return {"error": "; ".join(errors)}
    return {"wasm": base64.b64encode(wasm).decode()}


def _wat_line(message: str) -> int | None:
    found = re.search(r":(\d+):\d+", message)
    return int(found.group(1)) if found else None


def main() -> None:
    cpu_s, data_bytes = int(sys.argv[1]), int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    sys.stdout.write(json.dumps(check(sys.stdin.buffer.read())) + "\n")


if __name__ == "__main__":
    main()
