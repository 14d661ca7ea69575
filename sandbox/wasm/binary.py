"""Reading and writing the WebAssembly binary format: sections, vectors, LEB128 numbers.

Just what rewriting a tenant's module needs (`sandbox.wasm.grow`): split it into sections, a
section into its items, and put it back together. Every read is bounds-checked: the input is
a tenant's, although only modules the compiler already accepted get here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

HEADER_BYTES = 8
#: The order sections must appear in (custom sections, 0, may appear anywhere).
ORDER = (0, 1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11)


class Reader:
    """A cursor over bytes, with the LEB128 reads of the format."""

    def __init__(self, data: bytes, position: int = 0) -> None:
        self.data, self.position = data, position

    @property
    def at_end(self) -> bool:
        return self.position >= len(self.data)

    def byte(self) -> int:
        if self.at_end:
            raise ValueError("the module ends in the middle of an item")
        value = self.data[self.position]
        self.position += 1
        return value

    def skip(self, count: int) -> None:
        if count < 0 or self.position + count > len(self.data):
            raise ValueError("an item runs past the end of the module")
        self.position += count

    def uleb(self) -> int:
        result = shift = 0
        while True:
            byte = self.byte()
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result

    def sleb(self) -> None:
        """Skip a signed LEB128 number."""
        while self.byte() & 0x80:
            pass


def uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def sections(wasm: bytes) -> list[tuple[int, bytes]]:
    """(id, payload) of each section, in order."""
    reader, found = Reader(wasm, HEADER_BYTES), []
    while not reader.at_end:
        kind, size = reader.byte(), reader.uleb()
        start = reader.position
        reader.skip(size)
        found.append((kind, wasm[start : start + size]))
    return found


def assemble(header: bytes, parts: list[tuple[int, bytes]]) -> bytes:
    return header + b"".join(bytes([kind]) + uleb(len(data)) + data for kind, data in parts)


def replace(parts: list[tuple[int, bytes]], changed: dict[int, bytes]) -> list[tuple[int, bytes]]:
    """`parts` with the sections in `changed` replaced, or inserted where they belong."""
    out = [(kind, changed.get(kind, data)) for kind, data in parts]
    for kind in sorted(set(changed) - {k for k, _ in parts}, key=ORDER.index):
        later = [i for i, (k, _) in enumerate(out) if k and ORDER.index(k) > ORDER.index(kind)]
        out.insert(later[0] if later else len(out), (kind, changed[kind]))
    return out


def items(payload: bytes, skip: Callable[[Reader], object]) -> list[bytes]:
    """The items of a vector section, each as the bytes it spans (`skip` reads one)."""
    if not payload:
        return []
    reader = Reader(payload)
    found = []
    for _ in range(reader.uleb()):
        start = reader.position
        skip(reader)
        found.append(payload[start : reader.position])
    return found


def vector(parts: list[bytes]) -> bytes:
    return uleb(len(parts)) + b"".join(parts)


def bodies(code: bytes) -> Iterator[bytes]:
    """Each function body of a code section."""
    reader = Reader(code)
    for _ in range(reader.uleb()):
        size = reader.uleb()
        start = reader.position
        reader.skip(size)
        yield code[start : start + size]
