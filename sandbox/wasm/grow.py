"""Knowing that a module asked for more memory than its limit, so that its run ends as `memory`.

Past the store's memory limit `memory.grow` returns -1 and leaves no trace: a module that
asks for 200 MiB under a 64 MiB limit and then traps (as most do: `unreachable`, or a store
past the end of its memory) looked like any failing module, and ended as `error`. wasmtime's
C API offers no hook on a refused grow, so the module is given one: when a worker compiles a
tenant's module, every `memory.grow` in its code becomes a call to a function appended to it,
which grows the memory and, when that fails, sets an exported global the worker reads when
the run ends. Appending a function, a type, a global and an export renumbers nothing.

Finding the instructions means decoding every function body, so the decoder knows the
immediates of every instruction of the proposals the tenant engine accepts (see
`sandbox.wasm.engine.engine_config`): MVP, sign extension, saturating conversions, bulk
memory, reference types, multi-value, tail calls and SIMD.
"""

from __future__ import annotations

from sandbox.wasm import binary
from sandbox.wasm.binary import Reader, uleb

#: The export that tells whether a grow was refused (1) during the run.
REFUSED_EXPORT = "cadenza:memory-grow-refused"
_TYPE, _IMPORT, _FUNCTION, _GLOBAL, _EXPORT, _CODE = 1, 2, 3, 6, 7, 10
_I32, _GROW, _CALL, _END = 0x7F, 0x40, 0x10, 0x0B
_HOOK_TYPE = bytes([0x60, 1, _I32, 1, _I32])
_ONE_INDEX = {0x0C, 0x0D, 0x10, 0x12, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xD2, 0x3F}
_BLOCKS, _MEMORY_ACCESS = {0x02, 0x03, 0x04}, range(0x28, 0x3F)
#: 0xFC instructions: how many indices follow each (saturating conversions have none).
_MISC_INDICES = {8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1}
_SIMD_MEMARG = {*range(0, 12), 92, 93}
_SIMD_LANE, _SIMD_MEMARG_LANE = range(21, 35), range(84, 92)


def instrument(wasm: bytes) -> bytes:
    """`wasm` with every `memory.grow` routed through the hook (see the module docstring), or
    unchanged if it has none; ValueError if it cannot be rewritten."""
    parts = binary.sections(wasm)
    found = dict(parts)
    code = found.get(_CODE, b"")
    if not _has_grow(code):
        return wasm
    types = binary.items(found.get(_TYPE, b""), _skip_type)
    functions = binary.items(found.get(_FUNCTION, b""), Reader.uleb)
    globals_ = binary.items(found.get(_GLOBAL, b""), _skip_global)
    exports = binary.items(found.get(_EXPORT, b""), _skip_export)
    if any(REFUSED_EXPORT.encode() in export for export in exports):
        raise ValueError(f"the module exports {REFUSED_EXPORT!r}, a name the sandbox uses")
    hook = len(binary.items(found.get(_IMPORT, b""), _skip_import)) + len(functions)
    if _HOOK_TYPE not in types:
        types.append(_HOOK_TYPE)
    changed = {
        _TYPE: binary.vector(types),
        _FUNCTION: binary.vector([*functions, uleb(types.index(_HOOK_TYPE))]),
        _GLOBAL: binary.vector([*globals_, bytes([_I32, 1, 0x41, 0, _END])]),
        _EXPORT: binary.vector([*exports, _export(len(globals_))]),
        _CODE: _code(code, hook, len(globals_)),
    }
    return binary.assemble(wasm[: binary.HEADER_BYTES], binary.replace(parts, changed))


def _has_grow(code: bytes) -> bool:
    return any(_GROW in _instructions(body) for body in binary.bodies(code)) if code else False


def _code(code: bytes, hook: int, flag: int) -> bytes:
    rewritten = [_rewrite(body, hook) for body in binary.bodies(code)]
    hook_body = (
        bytes([0, 0x20, 0, _GROW, 0, 0x22, 0, 0x41, 0x7F, 0x46, 0x04, 0x40, 0x41, 1, 0x24])
        + uleb(flag)
        + bytes([_END, 0x20, 0, _END])
    )
    return binary.vector([uleb(len(body)) + body for body in [*rewritten, hook_body]])


def _rewrite(body: bytes, hook: int) -> bytes:
    """The body with each `memory.grow` (opcode and memory index) replaced by `call hook`."""
    out, reader = bytearray(), Reader(body)
    _skip_locals(reader)
    out += body[: reader.position]
    while not reader.at_end:
        start, opcode = reader.position, _skip_instruction(reader)
        out += bytes([_CALL]) + uleb(hook) if opcode == _GROW else body[start : reader.position]
    return bytes(out)


def _instructions(body: bytes) -> set[int]:
    reader = Reader(body)
    _skip_locals(reader)
    found = set()
    while not reader.at_end:
        found.add(_skip_instruction(reader))
    return found


def _skip_locals(reader: Reader) -> None:
    for _ in range(reader.uleb()):
        reader.uleb()
        _skip_value_type(reader)


def _skip_instruction(reader: Reader) -> int:
    """Read one instruction; returns its opcode (a prefix byte for prefixed ones)."""
    opcode = reader.byte()
    if opcode in _ONE_INDEX or opcode == _GROW:
        reader.uleb()
    elif opcode in _BLOCKS:
        _skip_block_type(reader)
    elif opcode in _MEMORY_ACCESS:
        _skip_memarg(reader)
    elif opcode in (0x41, 0x42):
        reader.sleb()
    elif opcode in (0x43, 0x44):
        reader.skip(4 if opcode == 0x43 else 8)
    else:
        _skip_other(reader, opcode)
    return opcode


def _skip_other(reader: Reader, opcode: int) -> None:
    if opcode == 0x0E:  # br_table: the targets, then the default
        for _ in range(reader.uleb() + 1):
            reader.uleb()
    elif opcode in (0x11, 0x13):  # call_indirect, return_call_indirect: type and table
        reader.uleb()
        reader.uleb()
    elif opcode == 0x1C:  # select with its types
        for _ in range(reader.uleb()):
            _skip_value_type(reader)
    elif opcode == 0xD0:  # ref.null and its heap type
        reader.sleb()
    elif opcode == 0xFC:
        for _ in range(_MISC_INDICES.get(reader.uleb(), 0)):
            reader.uleb()
    elif opcode == 0xFD:
        _skip_simd(reader)
    elif not (opcode in (0x00, 0x01, 0x05, 0x0B, 0x0F, 0x1A, 0x1B, 0xD1) or 0x45 <= opcode <= 0xC4):
        raise ValueError(f"instruction 0x{opcode:02x} is not one the sandbox accepts")


def _skip_simd(reader: Reader) -> None:
    operation = reader.uleb()
    if operation in _SIMD_MEMARG or operation in _SIMD_MEMARG_LANE:
        _skip_memarg(reader)
    if operation in (12, 13):  # v128.const, i8x16.shuffle
        reader.skip(16)
    elif operation in _SIMD_LANE or operation in _SIMD_MEMARG_LANE:
        reader.skip(1)


def _skip_memarg(reader: Reader) -> None:
    if reader.uleb() & 0x40:  # a memory index follows the alignment
        reader.uleb()
    reader.uleb()


def _skip_block_type(reader: Reader) -> None:
    if reader.data[reader.position] in (0x40, 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F):
        reader.skip(1)
    else:
        reader.sleb()  # a type index (multi-value)


def _skip_value_type(reader: Reader) -> None:
    if reader.byte() in (0x63, 0x64):  # a typed reference and its heap type
        reader.sleb()


def _skip_type(reader: Reader) -> None:
    if reader.byte() != 0x60:
        raise ValueError("only function types are accepted")
    for _ in range(2):  # parameters, results
        for _ in range(reader.uleb()):
            _skip_value_type(reader)


def _skip_global(reader: Reader) -> None:
    _skip_value_type(reader)
    reader.byte()  # mutability
    while _skip_instruction(reader) != _END:  # the initial value, a constant expression
        pass


def _skip_export(reader: Reader) -> None:
    reader.skip(reader.uleb())
    reader.byte()
    reader.uleb()


def _skip_import(reader: Reader) -> None:
    for _ in range(2):  # module and name
        reader.skip(reader.uleb())
    if reader.byte() != 0:
        raise ValueError("a tenant module imports functions only")
    reader.uleb()


def _export(flag: int) -> bytes:
    name = REFUSED_EXPORT.encode()
    return uleb(len(name)) + name + bytes([3]) + uleb(flag)
