"""The operator key file: one key per line, newest (the one that seals) first.

Every change replaces the whole file at once (a temporary file beside it, flushed to disk,
then renamed over it), so a crash leaves either the old file or the new one, never half of
either. The file is readable by its owner only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from tenants.secret_box import KeyRing, SecretKeyError, new_key, ring_of

HEADER = (
    "# Cadenza operator keys: the first line seals new secrets, every line opens old ones.\n"
    "# Keep a copy apart from the database's backups; without it the stored secrets are lost.\n"
)


def read_ring(path: Path) -> KeyRing:
    try:
        text = path.read_text()
    except OSError as exc:
        raise SecretKeyError(
            f"cannot read the operator key file {path}: {exc.strerror}; point "
            "CADENZA_SECRET_KEY_FILE at it, or give the keys in CADENZA_SECRET_KEYS"
        ) from exc
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    return ring_of(lines)


def ensure_key_file(path: Path) -> KeyRing:
    """The ring in `path`, creating the file with a new key if there is none yet (first start).
    Two processes starting at once agree on one key: the file appears whole, once."""
    if not path.exists():
        with (
            _complete_copy(path, KeyRing((new_key(),))) as temporary,
            contextlib.suppress(FileExistsError),
        ):
            os.link(temporary, path)
    return read_ring(path)


def write_ring(path: Path, ring: KeyRing) -> None:
    """Replace the key file with `ring`, atomically."""
    with _complete_copy(path, ring) as temporary:
        os.replace(temporary, path)


@contextlib.contextmanager
def _complete_copy(path: Path, ring: KeyRing) -> Iterator[Path]:
    """A file beside `path` holding `ring`, on disk; removed after the block if still there."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as file:
            file.write(HEADER + "".join(f"{key}\n" for key in ring.keys))
            file.flush()
            os.fsync(file.fileno())
        yield temporary
        _sync_directory(path.parent)
    finally:
        temporary.unlink(missing_ok=True)


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory if str(directory) else ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
