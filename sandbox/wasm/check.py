"""Turning a tenant's module (binary or WAT) into a compiled module that may run here.

Called in a worker, under the limits of the run or the save that asked (parsing WAT and
compiling take seconds or gigabytes on crafted input: the worker's rlimits and the engine's
wall-clock kill bound them, and the engine process never compiles tenant code). A module is
refused with the reason when it is not WebAssembly (a PNG, a truncated file), does not
validate, or imports anything but the `cadenza` ABI with its exact signatures. What is
compiled is the module with its `memory.grow` instructions hooked (`sandbox.wasm.grow`).
"""

from __future__ import annotations

import re

import wasmtime

from sandbox.errors import ScriptRejected
from sandbox.wasm import abi, grow

WASM_MAGIC = b"\x00asm"
_KNOWN_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"PK\x03\x04": "a zip archive",
    b"\x7fELF": "an ELF executable",
    b"%PDF": "a PDF document",
}


def to_binary(data: bytes) -> bytes:
    """Binary module bytes from a binary or WAT input; ScriptRejected otherwise."""
    if data.startswith(WASM_MAGIC):
        return data
    for magic, kind in _KNOWN_MAGIC.items():
        if data.startswith(magic):
            raise ScriptRejected(f"this is not a WebAssembly module but {kind}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScriptRejected(
            "not a WebAssembly module: no \\0asm header and not WAT text"
        ) from None
    try:
        return bytes(wasmtime.wat2wasm(text))
    except wasmtime.WasmtimeError as exc:
        message = f"WAT does not parse: {str(exc).strip()}"
        raise ScriptRejected(message, _wat_line(message)) from None


def compile_module(engine: wasmtime.Engine, data: bytes) -> wasmtime.Module:
    """The compiled module, if it validates and keeps to the ABI; ScriptRejected otherwise."""
    wasm = to_binary(data)
    try:
        wasmtime.Module.validate(engine, wasm)
        module = wasmtime.Module(engine, grow.instrument(wasm))
    except wasmtime.WasmtimeError as exc:
        first = (str(exc).strip().splitlines() or ["(no reason given)"])[0]
        raise ScriptRejected(f"invalid WebAssembly: {first}") from None
    except ValueError as exc:
        raise ScriptRejected(f"the module cannot run here: {exc}") from None
    errors = abi.interface_errors(module)
    if errors:
        raise ScriptRejected("; ".join(errors))
    return module


def _wat_line(message: str) -> int | None:
    found = re.search(r":(\d+):\d+", message)
    return int(found.group(1)) if found else None
