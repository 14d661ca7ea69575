"""The wake channel between `serve`'s API processes and its engine process, on a real Unix
socket: every tenant id sent arrives intact and in order (bursts included), a sender without a
listener never raises (the engine polls), and a connection writing what is not text is dropped
without harming the others."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.serving.wake import WakeSender, listening

TENANT_IDS = st.lists(
    st.text(
        st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\n\r"),
        min_size=1,
        max_size=40,
    ),
    min_size=1,
    max_size=200,
)


async def _received(path: Path, ids: list[str], junk: bytes = b"") -> list[str]:
    got: list[str] = []
    arrived = asyncio.Event()

    def on_wake(tenant_id: str) -> None:
        got.append(tenant_id)
        if len(got) == len(ids):
            arrived.set()

    async with listening(path, on_wake):
        if junk:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
                raw.connect(str(path))
                raw.sendall(junk)
        sender = WakeSender(path)
        for tenant_id in ids:
            sender.send(tenant_id)
        sender.close()
        await asyncio.wait_for(arrived.wait(), timeout=10)
    return got


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ids=TENANT_IDS)
def test_every_tenant_id_sent_arrives_in_order(tmp_path: Path, ids: list[str]) -> None:
    assert asyncio.run(_received(tmp_path / "wake", ids)) == ids


def test_a_connection_writing_no_text_is_dropped(tmp_path: Path) -> None:
    got = asyncio.run(_received(tmp_path / "wake", ["t_after"], junk=b"\xff\xfe\x00\n"))
    assert got == ["t_after"]


def test_sending_with_no_engine_listening_never_raises(tmp_path: Path) -> None:
    sender = WakeSender(tmp_path / "nobody")
    sender.send("t_1")
    sender.close()
    assert not (tmp_path / "nobody").exists()


def test_the_socket_file_is_gone_after_the_listener_ends(tmp_path: Path) -> None:
    asyncio.run(_received(tmp_path / "wake", ["t_1"]))
    assert not (tmp_path / "wake").exists()
