"""The engine's write turns on SQLite: one writer at a time, an urgent one (a claim of due
actions) ahead of those already waiting unless the first of them has waited the patience,
arrival order within each kind, and a waiter that gives up never keeps the turn from the
others."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.write_turns import WriteTurns

PATIENCE_S = 0.1


class FakeTime:
    """The turns' clock, moved only by the writers (each holds the turn for its own time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _queue(
    turns: WriteTurns,
    name: str,
    urgent: bool,
    entered: list[str],
    time: FakeTime | None = None,
    hold_s: float = 0.0,
) -> None:
    async with turns.turn(urgent):
        entered.append(name)
        assert entered.count("inside") == 0
        entered.append("inside")
        if time is not None:
            time.now += hold_s
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


async def test_an_urgent_writer_goes_before_the_writers_waiting_before_it() -> None:
    turns, entered = WriteTurns(PATIENCE_S, FakeTime()), []
    async with turns.turn():
        tasks = [
            asyncio.create_task(_queue(turns, name, urgent, entered))
            for name, urgent in (("n1", False), ("n2", False), ("u1", True), ("u2", True))
        ]
        await _settle()
        assert entered == []
    await asyncio.gather(*tasks)
    assert entered == ["u1", "u2", "n1", "n2"]
    await _enters_at_once(turns)


async def test_urgent_writers_that_keep_coming_do_not_starve_the_others() -> None:
    """Each urgent writer queues the next before it ends (fifty tenants' claims under API load)
    and holds the turn 40 ms: the writer that is not urgent enters as soon as it has waited
    the patience, after three of them."""
    time = FakeTime()
    turns, entered = WriteTurns(PATIENCE_S, time), []
    more = asyncio.Queue[asyncio.Task[None]]()

    async def claim(number: int) -> None:
        async with turns.turn(urgent=True):
            entered.append(f"u{number}")
            time.now += 0.04
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
    assert entered.index("completion") == 3  # u0-u2 held it 0.12 s: past the patience
    assert [e for e in entered if e.startswith("u")] == [f"u{n}" for n in range(6)]
    await _enters_at_once(turns)


#: A waiter: (urgent, how long it holds the turn in ms, cancelled before its turn).
_WAITERS = st.lists(
    st.tuples(st.booleans(), st.integers(0, 60), st.booleans()), min_size=1, max_size=12
)


@settings(max_examples=80, deadline=None)
@given(_WAITERS)
def test_generated_waiters_pass_the_others_only_within_the_patience(
    waiters: list[tuple[bool, int, bool]],
) -> None:
    """Every waiter queues at time 0 behind a holder; those not cancelled enter one at a time,
    each kind in arrival order; an urgent one enters while another kind waits only before the
    patience has passed, and one that is not urgent enters while an urgent one waits only
    after it; the turn is free at the end."""

    async def scenario() -> None:
        time = FakeTime()
        turns, entered = WriteTurns(PATIENCE_S, time), []
        async with turns.turn():
            tasks = [
                asyncio.create_task(_queue(turns, str(i), urgent, entered, time, hold / 1000))
                for i, (urgent, hold, _) in enumerate(waiters)
            ]
            await _settle()
            for task, (_, _, cancelled) in zip(tasks, waiters, strict=True):
                if cancelled:
                    task.cancel()
            await _settle()
        await asyncio.gather(*tasks, return_exceptions=True)
        kept = [i for i, (_, _, cancelled) in enumerate(waiters) if not cancelled]
        assert sorted(entered, key=int) == [str(i) for i in kept]
        is_urgent = {str(i): waiters[i][0] for i in kept}
        for kind in (True, False):
            order = [name for name in entered if is_urgent[name] is kind]
            assert order == sorted(order, key=int)
        at_s = 0.0  # the time each one entered: the holds of those before it
        for position, name in enumerate(entered):
            waiting = {is_urgent[n] for n in entered[position + 1 :]}
            if is_urgent[name] and False in waiting:
                assert at_s < PATIENCE_S
            if not is_urgent[name] and True in waiting:
                assert at_s >= PATIENCE_S
            at_s += waiters[int(name)][1] / 1000
        await _enters_at_once(turns)

    asyncio.run(scenario())


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
