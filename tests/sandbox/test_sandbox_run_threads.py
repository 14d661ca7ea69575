"""The run threads that carry blocking wasmtime calls off the event loop hand back results and
errors, and end when closed."""

from __future__ import annotations

import threading

import pytest

from sandbox.wasm.engine import RunThreads


def _fail() -> None:
    raise ValueError("from the run thread")


async def test_a_call_returns_its_result_from_another_thread() -> None:
    threads = RunThreads(2, "test-run")
    try:
        name = await threads.call(lambda: threading.current_thread().name)
        assert name.startswith("test-run-")
        assert await threads.call(pow, 2, 10) == 1024
    finally:
        threads.close()


async def test_a_call_raises_what_the_function_raised() -> None:
    threads = RunThreads(1, "test-run")
    try:
        with pytest.raises(ValueError, match="from the run thread"):
            await threads.call(_fail)
        assert await threads.call(len, "still serving") == 13
    finally:
        threads.close()


async def test_close_ends_every_thread() -> None:
    before = {t.name for t in threading.enumerate()}
    threads = RunThreads(3, "test-close")
    assert await threads.call(sum, [1, 2]) == 3
    threads.close()
    left = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("test-close-") for name in left)
