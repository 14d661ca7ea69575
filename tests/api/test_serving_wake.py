"""The wake channel between `serve`'s API processes and its engine process, on a real Unix
socket: every tenant id sent arrives intact, with its kind of change, and in order (bursts
included), a sender without a listener never raises (the engine polls), and a connection
writing what is not a wake is dropped without harming the others."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.serving.wake import WakeSender, listening
from engine.domain.changes import Change

Wake = tuple[str, Change]
WAKES = st.lists(
    st.tuples(
        st.text(
            st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\n\r"),
            min_size=1,
            max_size=40,
        ),
        st.sampled_from(Change),
    ),
    min_size=1,
    max_size=200,
)


async def _received(path: Path, ids: list[Wake], junk: bytes = b"") -> list[Wake]:
    got: list[Wake] = []
    arrived = asyncio.Event()

    def on_wake(tenant_id: str, change: Change) -> None:
        got.append((tenant_id, change))
        if len(got) == len(ids):
            arrived.set()

    async with listening(path, on_wake):
        if junk:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
                raw.connect(str(path))
                raw.sendall(junk)
        sender = WakeSender(path)
        for tenant_id, change in ids:
            sender.send(tenant_id, change)
        sender.close()
        await asyncio.wait_for(arrived.wait(), timeout=10)
    return got


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ids=WAKES)
def test_every_wake_sent_arrives_in_order(tmp_path: Path, ids: list[Wake]) -> None:
    assert asyncio.run(_received(tmp_path / "wake", ids)) == ids


@pytest.mark.parametrize("junk", [b"\xff\xfe\x00\n", b"t_1\n", b"moved t_1\n"])
def test_a_connection_writing_what_is_not_a_wake_is_dropped(tmp_path: Path, junk: bytes) -> None:
    after = ("t_after", Change.CHANGED)
    assert asyncio.run(_received(tmp_path / "wake", [after], junk=junk)) == [after]


def test_sending_with_no_engine_listening_never_raises(tmp_path: Path) -> None:
    sender = WakeSender(tmp_path / "nobody")
    sender.send("t_1", Change.ADDED)
    sender.close()
    assert not (tmp_path / "nobody").exists()


def test_the_socket_file_is_gone_after_the_listener_ends(tmp_path: Path) -> None:
    asyncio.run(_received(tmp_path / "wake", [("t_1", Change.ADDED)]))
    assert not (tmp_path / "wake").exists()
