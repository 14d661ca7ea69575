"""The shared epoch clock ticks only while a run thread is busy, and pausing it never moves a
deadline: a guest that starts after a pause is stopped at its own deadline, not earlier."""

from __future__ import annotations

import time

import pytest
import wasmtime

from sandbox.contract import Limits
from sandbox.wasm.engine import WasmEngine

SPIN = '(module (func (export "spin") (loop $l (br $l))))'


@pytest.fixture
def engine():
    engine = WasmEngine(threads=1, cache_dir=None)
    yield engine
    engine.close()


def _spin_until_interrupted(engine: WasmEngine, timeout_s: float) -> tuple[bool, float, float]:
    """(clock ticking meanwhile, seconds the guest ran, the deadline's seconds)."""
    started = time.monotonic()
    store, _fuel = engine.new_store(Limits(timeout_s=timeout_s), started + timeout_s)
    instance = wasmtime.Instance(store, wasmtime.Module(engine.engine, SPIN), [])
    with pytest.raises(wasmtime.Trap, match="interrupt"):
        instance.exports(store)["spin"](store)
    return engine.is_ticking, time.monotonic() - started, timeout_s


async def test_the_clock_runs_only_while_a_run_thread_is_busy(engine: WasmEngine) -> None:
    assert not engine.is_ticking
    assert await engine.call(lambda: engine.is_ticking) is True
    assert not engine.is_ticking


async def test_a_run_after_a_pause_is_stopped_at_its_own_deadline(engine: WasmEngine) -> None:
    await engine.call(_spin_until_interrupted, engine, 0.05)
    # The clock is paused now; a later guest's deadline must still count from its own start.
    for timeout_s in (0.2, 0.3):
        ticking, ran_s, deadline_s = await engine.call(_spin_until_interrupted, engine, timeout_s)
        assert ticking
        assert deadline_s <= ran_s < deadline_s * 3
    assert not engine.is_ticking
