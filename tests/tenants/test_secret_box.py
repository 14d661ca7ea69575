"""Sealed secrets open only with the operator key that sealed them, for the owner they were
sealed for, and never hold the plain value; key files appear whole, once."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenants.key_file import ensure_key_file, read_ring, write_ring
from tenants.secret_box import KeyRing, SecretBox, SecretKeyError, key_id, new_key

secrets_text = st.text(min_size=1, max_size=200)
contexts = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_/", min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(value=secrets_text, context=contexts)
def test_sealed_value_opens_to_itself_and_never_contains_it(value: str, context: str) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    sealed = box.seal(value, context)
    assert box.open(sealed, context) == value
    assert sealed.startswith(f"v1.{box.ring.primary_id}.")
    assert len(value) < 4 or value not in sealed


@settings(max_examples=100, deadline=None)
@given(value=secrets_text, context=contexts, other=contexts)
def test_a_sealed_value_moved_to_another_owner_does_not_open(
    value: str, context: str, other: str
) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    sealed = box.seal(value, context)
    if other != context:
        with pytest.raises(SecretKeyError, match="altered or copied"):
            box.open(sealed, other)


@settings(max_examples=100, deadline=None)
@given(value=secrets_text, flip=st.integers(min_value=0, max_value=10_000))
def test_any_altered_byte_is_refused(value: str, flip: int) -> None:
    box = SecretBox(KeyRing((new_key(),)))
    sealed = box.seal(value, "t/webhook_signing")
    head, body = sealed.rsplit(".", 1)
    index = flip % (len(body) - 4)  # the last characters may carry only padding bits
    swapped = "A" if body[index] != "A" else "B"
    altered = f"{head}.{body[:index]}{swapped}{body[index + 1 :]}"
    with pytest.raises(SecretKeyError):
        box.open(altered, "t/webhook_signing")


def test_another_key_cannot_open_and_says_which_key_is_missing() -> None:
    sealed = SecretBox(KeyRing((new_key(),))).seal("whsec_x", "t1/webhook_signing")
    stranger = SecretBox(KeyRing((new_key(),)))
    with pytest.raises(SecretKeyError, match=sealed.split(".")[1]):
        stranger.open(sealed, "t1/webhook_signing")


def test_reseal_moves_a_value_to_the_newest_key() -> None:
    old, new = new_key(), new_key()
    sealed = SecretBox(KeyRing((old,))).seal("whsec_y", "c")
    both = SecretBox(KeyRing((new, old)))
    resealed = both.reseal(sealed, "c")
    assert resealed is not None and resealed.split(".")[1] == key_id(new)
    assert both.reseal(resealed, "c") is None  # already under the newest key
    assert SecretBox(KeyRing((new,))).open(resealed, "c") == "whsec_y"


@pytest.mark.parametrize(
    "keys, message",
    [
        pytest.param((), "no operator key", id="none"),
        pytest.param(("not base64 at all!",), "32 bytes", id="not-base64"),
        pytest.param(("c2hvcnQ=",), "32 bytes", id="too-short"),
    ],
)
def test_malformed_keys_are_refused_with_the_fix(keys: tuple[str, ...], message: str) -> None:
    with pytest.raises(SecretKeyError, match=message):
        KeyRing(keys)


def test_a_box_reading_a_key_file_follows_a_rotation_without_restart(tmp_path: Path) -> None:
    path = tmp_path / "cadenza.key"
    running = SecretBox(ensure_key_file(path), reload=lambda: read_ring(path))
    before = running.seal("whsec_a", "c")
    rotated = KeyRing((new_key(), *read_ring(path).keys))
    write_ring(path, rotated)
    sealed_elsewhere = SecretBox(rotated).seal("whsec_b", "c")
    assert running.open(sealed_elsewhere, "c") == "whsec_b"  # an unknown key id re-reads
    assert running.open(before, "c") == "whsec_a"
    assert running.seal("whsec_c", "c").split(".")[1] == rotated.primary_id


def test_key_file_is_private_to_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "cadenza.db.key"
    ensure_key_file(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["cadenza.db.key"]  # no temporary left


def _ensure(path: str, results: multiprocessing.Queue[str]) -> None:
    results.put(ensure_key_file(Path(path)).keys[0])


def test_processes_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "shared.key"
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[str] = context.Queue()
    workers = [context.Process(target=_ensure, args=(str(path), results)) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    keys = {results.get(timeout=10) for _ in workers}
    assert keys == {read_ring(path).keys[0]}
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
