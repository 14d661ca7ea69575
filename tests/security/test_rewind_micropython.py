"""A micropython worker serves its tenant's runs in one interpreter, put back as it was before
every run (`sandbox.micropython.snapshot`): attacked the way a tenant would, by planting state
in every place a script can write and reading it back in the next run on the same worker."""

from __future__ import annotations

import pytest

from sandbox import Limits, OutcomeStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: Writes every kind of state a script can reach: attributes of every module that takes them
#: (built-in ones are read-only), the module table, the prelude's own classes and functions
#: (sabotaging the next run's host API), and 200 KB of the heap kept alive from a module.
PLANT = """
import cadenza, json, sys
cadenza.X.planted = cadenza.planted = "secret of the last run"
sys.modules["planted"] = [bytearray(100000), bytearray(100000)]
cadenza.call = cadenza.dumps = None
def main(ctx):
    return "planted"
"""
#: Reads all of it back, uses the host API, and measures the heap in use.
READ = """
import cadenza, gc, sys
def main(ctx):
    found = [getattr(m, "planted", None) for m in (cadenza.X, cadenza)]
    return found + [sys.modules.get("planted"), ctx.kv.get("k", "default"), gc.mem_alloc()]
"""
CLEAN = [None, None, None, "default"]


async def test_a_run_finds_nothing_its_tenants_last_run_left(run) -> None:
    before = await run("micropython", READ, tenant_id="t-rewind")
    planted = await run("micropython", PLANT, tenant_id="t-rewind")
    after = await run("micropython", READ, tenant_id="t-rewind")
    assert (before.status, planted.status, after.status) == (OutcomeStatus.OK,) * 3
    assert before.pid == planted.pid == after.pid  # one worker, one interpreter instance
    assert before.result[:4] == CLEAN
    assert after.result == before.result  # the heap in use included, to the byte


async def test_another_tenant_finds_nothing_either(run) -> None:
    planted = await run("micropython", PLANT, tenant_id="t-rewind-a")
    other = await run("micropython", READ, tenant_id="t-rewind-b")
    assert (planted.status, other.status) == (OutcomeStatus.OK, OutcomeStatus.OK)
    assert other.pid != planted.pid
    assert other.result[:4] == CLEAN


async def test_a_run_that_ends_badly_leaves_nothing_to_the_next(run) -> None:
    """A failed run (its exception reported) is rewound like a good one; a trap ends the
    instance, and the next run gets a fresh one."""
    failing = PLANT.replace('return "planted"', 'raise ValueError("after planting")')
    failed = await run("micropython", failing, tenant_id="t-rewind-c")
    after_failure = await run("micropython", READ, tenant_id="t-rewind-c")
    looping = PLANT.replace('return "planted"', "while True:\n        pass")
    trapped = await run("micropython", looping, Limits(timeout_s=0.5), tenant_id="t-rewind-c")
    after_trap = await run("micropython", READ, tenant_id="t-rewind-c")
    assert failed.status is OutcomeStatus.ERROR and after_failure.pid == failed.pid
    assert after_failure.result[:4] == CLEAN
    assert trapped.status is OutcomeStatus.TIMEOUT
    assert after_trap.status is OutcomeStatus.OK and after_trap.result[:4] == CLEAN


#: Plants state and says what it found planted: the same script, run again on the same worker
#: from its snapshot taken right after it compiled, must find nothing either.
PLANT_AND_READ = """
import cadenza, gc, sys
found = [getattr(cadenza, "planted", None), sys.modules.get("planted")]
cadenza.planted = sys.modules["planted"] = "left by run {n}"
cadenza.compiled = None
def main(ctx):
    return found + [{n}, gc.mem_alloc()]
"""


async def test_a_script_run_again_from_its_compiled_snapshot_finds_nothing(run) -> None:
    script = PLANT_AND_READ.format(n=1)
    first = await run("micropython", script, tenant_id="t-rewind-d")
    again = await run("micropython", script, tenant_id="t-rewind-d")
    assert (first.status, again.status) == (OutcomeStatus.OK, OutcomeStatus.OK)
    assert first.pid == again.pid
    assert again.result == first.result == [None, None, 1, first.result[3]]
    assert again.fuel < first.fuel  # compiled once: the second run did not compile it again


async def test_compiled_scripts_are_never_confused_with_one_another(run) -> None:
    """More scripts than an instance keeps compiled, in turns: each run is its own script's,
    whether it starts from its compiled snapshot, a compilation, or after a failure."""
    scripts = [PLANT_AND_READ.format(n=n) for n in range(6)] + ["def main(ctx)\n"]
    for turn in range(3):
        for n, script in enumerate(scripts):
            outcome = await run("micropython", script, tenant_id="t-rewind-e")
            if n == 6:
                assert outcome.status is OutcomeStatus.REJECTED, (turn, outcome.error)
                continue
            assert outcome.status is OutcomeStatus.OK, (turn, n, outcome.error)
            assert outcome.result[:3] == [None, None, n], (turn, n)
