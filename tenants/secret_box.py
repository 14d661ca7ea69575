"""Sealing stored secrets with the operator's key: AES-256-GCM, the key id in every value.

A sealed value reads `v1.<key id>.<nonce and ciphertext, base64url>`: format 1 is AES-256-GCM
with a random 96-bit nonce, and the associated data is what the secret belongs to (`context`,
e.g. the tenant and purpose), so a sealed value copied onto another tenant's row does not
open. The key id (the first 8 hex digits of the key's SHA-256) says which key sealed it, so
rotation knows what is left to re-seal without trying every key.

Keys come from the operator (`KeyRing`): the first key seals, every key opens. A copy of the
database or of a backup without the key holds no usable secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tenants.errors import CadenzaDataError

FORMAT = "v1"
NONCE_BYTES = 12
KEY_BYTES = 32


class SecretKeyError(CadenzaDataError):
    """The operator key is missing, malformed, or not the one that sealed a stored secret: see
    docs/operations.md, "Secrets and the operator key"."""


def new_key() -> str:
    """A fresh operator key, as written in key files and `CADENZA_SECRET_KEYS`."""
    return base64.urlsafe_b64encode(AESGCM.generate_key(bit_length=8 * KEY_BYTES)).decode()


def key_id(key: str) -> str:
    """The short public name of a key: safe to print, log and store."""
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def sealed_key_id(sealed: str) -> str:
    """Which key sealed `sealed` (SecretKeyError when it is not a sealed value)."""
    parts = sealed.split(".")
    if len(parts) != 3 or parts[0] != FORMAT:
        raise SecretKeyError("a stored secret is not in a format this Cadenza knows (v1)")
    return parts[1]


@dataclass(frozen=True)
class KeyRing:
    """The operator keys, newest first: `keys[0]` seals, all of them open."""

    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise SecretKeyError(
                "no operator key given: generate one with `cadenza secrets new-key`"
            )
        for key in self.keys:
            _aead(key)

    @property
    def primary_id(self) -> str:
        return key_id(self.keys[0])

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(key_id(k) for k in self.keys)


def _aead(key: str) -> AESGCM:
    try:
        raw = base64.urlsafe_b64decode(key.encode())
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != KEY_BYTES:
        raise SecretKeyError(
            f"operator key {key_id(key)} is not {KEY_BYTES} bytes in base64url: "
            "generate one with `cadenza secrets new-key`"
        )
    return AESGCM(raw)


class SecretBox:
    """Seals and opens secrets with the current key ring.

    `reload` (when the keys come from a file) is asked for the ring again when a value names
    a key this box does not hold, and before sealing: a rotation run by another process
    (`cadenza secrets rotate`) reaches a running server without a restart."""

    def __init__(self, ring: KeyRing, reload: Callable[[], KeyRing] | None = None) -> None:
        self._ring = ring
        self._reload = reload
        self._aeads = {key_id(k): _aead(k) for k in ring.keys}

    @property
    def ring(self) -> KeyRing:
        return self._ring

    def seal(self, plaintext: str, context: str) -> str:
        self.refresh()
        nonce = os.urandom(NONCE_BYTES)
        data = self._aeads[self._ring.primary_id].encrypt(
            nonce, plaintext.encode(), context.encode()
        )
        encoded = base64.urlsafe_b64encode(nonce + data).decode()
        return f"{FORMAT}.{self._ring.primary_id}.{encoded}"

    def open(self, sealed: str, context: str) -> str:
        kid = sealed_key_id(sealed)
        if kid not in self._aeads:
            self.refresh()
        aead = self._aeads.get(kid)
        if aead is None:
            raise SecretKeyError(
                f"a stored secret was sealed with operator key {kid}, which this process does "
                f"not have (it has {', '.join(self._ring.ids)}): give it that key too"
            )
        try:
            raw = base64.urlsafe_b64decode(sealed.split(".")[2].encode())
            return aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], context.encode()).decode()
        except (InvalidTag, binascii.Error, ValueError) as exc:
            raise SecretKeyError(
                f"a stored secret of {context} does not open with key {kid}: it was altered "
                "or copied from elsewhere"
            ) from exc

    def reseal(self, sealed: str, context: str) -> str | None:
        """`sealed` under the primary key, or None when it already is."""
        if sealed_key_id(sealed) == self._ring.primary_id:
            return None
        return self.seal(self.open(sealed, context), context)

    def refresh(self) -> None:
        if self._reload is None:
            return
        ring = self._reload()
        if ring != self._ring:
            self._ring = ring
            self._aeads = {key_id(k): _aead(k) for k in ring.keys}


def ring_of(keys: Sequence[str]) -> KeyRing:
    return KeyRing(tuple(k.strip() for k in keys if k.strip()))
