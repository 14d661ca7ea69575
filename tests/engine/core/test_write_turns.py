"""The engine's write turns on SQLite: one writer at a time, an urgent one (a claim of due
actions) ahead of those already waiting but never twice in a row while another waits, arrival
order within each class, and a waiter that gives up never keeps the turn from the others."""

from __future__ import annotations

import asyncio
from itertools import zip_longest

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.write_turns import WriteTurns


async def _queue(turns: WriteTurns, name: str, urgent: bool, entered: list[str]) -> None:
    async with turns.turn(urgent):
        entered.append(name)
        assert entered.count("inside") == 0
        entered.append("inside")
        await asyncio.sleep(0)  # let the others try to come in while this one holds the turn
        entered.remove("inside")


async def _enters_at_once(turns: WriteTurns) -> None:
    """A newcomer is handed the turn (nothing holds it, nobody waits): TimeoutError if not."""
    async with asyncio.timeout(1), turns.turn():
        pass


async def _settle() -> None:
    """Let every task created so far reach its wait for a turn."""
    for _ in range(5):
        await asyncio.sleep(0)


def _alternated(urgent: list[str], others: list[str]) -> list[str]:
    """The order of waiters queued behind a writer that is not urgent: the two kinds take
    turns, an urgent one first, and whichever kind is left goes on in arrival order."""
    pairs = zip_longest(urgent, others)
    return [name for pair in pairs for name in pair if name is not None]


async def test_an_urgent_writer_goes_before_the_writers_waiting_before_it() -> None:
    turns, entered = WriteTurns(), []
    async with turns.turn():
        tasks = [
            asyncio.create_task(_queue(turns, name, urgent, entered))
            for name, urgent in (("n1", False), ("n2", False), ("u1", True), ("u2", True))
        ]
        await _settle()
        assert entered == []
    await asyncio.gather(*tasks)
    assert entered == ["u1", "n1", "u2", "n2"]
    await _enters_at_once(turns)


async def test_urgent_writers_that_keep_coming_do_not_starve_the_others() -> None:
    """Each urgent writer queues the next before it ends (fifty tenants' claims under API load):
    the writer that is not urgent still enters after at most one of them."""
    turns, entered = WriteTurns(), []
    more = asyncio.Queue[asyncio.Task[None]]()

    async def claim(number: int) -> None:
        async with turns.turn(urgent=True):
            entered.append(f"u{number}")
            if number < 5:
                await more.put(asyncio.create_task(claim(number + 1)))
                await _settle()  # the next urgent writer is queued before this one ends

    async with turns.turn(urgent=True):
        first = asyncio.create_task(claim(0))
        completion = asyncio.create_task(_queue(turns, "completion", False, entered))
        await _settle()
    tasks = [first, completion]
    while len(tasks) < 7:
        tasks.append(await more.get())
    await asyncio.gather(*tasks)
    assert entered.index("completion") <= 1
    assert [e for e in entered if e.startswith("u")] == [f"u{n}" for n in range(6)]
    await _enters_at_once(turns)


async def test_a_writer_in_progress_is_not_overtaken() -> None:
    turns, entered = WriteTurns(), []
    holder = asyncio.Event()

    async def hold() -> None:
        async with turns.turn():
            entered.append("holder")
            await holder.wait()
            entered.append("holder done")

    first = asyncio.create_task(hold())
    await _settle()
    urgent = asyncio.create_task(_queue(turns, "urgent", True, entered))
    await _settle()
    assert entered == ["holder"]
    holder.set()
    await asyncio.gather(first, urgent)
    assert entered == ["holder", "holder done", "urgent"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=12),
)
def test_generated_waiters_enter_one_at_a_time_alternating_and_cancelled_never(
    waiters: list[tuple[bool, bool]],
) -> None:
    """Each waiter is (urgent, cancelled before its turn): the others enter one at a time,
    the two kinds alternating, an urgent one first, each kind in arrival order, and the turn
    is free at the end."""

    async def scenario() -> None:
        turns, entered = WriteTurns(), []
        async with turns.turn():
            tasks = [
                asyncio.create_task(_queue(turns, str(i), urgent, entered))
                for i, (urgent, _) in enumerate(waiters)
            ]
            await _settle()
            for task, (_, cancelled) in zip(tasks, waiters, strict=True):
                if cancelled:
                    task.cancel()
            await _settle()
        await asyncio.gather(*tasks, return_exceptions=True)
        kept = [(i, urgent) for i, (urgent, cancelled) in enumerate(waiters) if not cancelled]
        urgent = [str(i) for i, u in kept if u]
        assert entered == _alternated(urgent, [str(i) for i, u in kept if not u])
        await _enters_at_once(turns)
        async with asyncio.timeout(1):  # a newcomer finds the turn free
            async with turns.turn():
                pass

    asyncio.run(scenario())


async def test_a_writer_cancelled_as_it_is_handed_the_turn_passes_it_on() -> None:
    turns, entered = WriteTurns(), []
    async with turns.turn():
        late = asyncio.create_task(_queue(turns, "cancelled", True, entered))
        after = asyncio.create_task(_queue(turns, "after", False, entered))
        await _settle()
    late.cancel()  # the turn was just handed to it; its task has not resumed yet
    await asyncio.gather(late, after, return_exceptions=True)
    assert late.cancelled()
    assert entered == ["after"]
    await _enters_at_once(turns)
