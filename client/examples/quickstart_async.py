"""The async client: the same methods, awaited; lists are `async for` loops.

python client/examples/quickstart_async.py http://127.0.0.1:8000 cdz_...
"""

from __future__ import annotations

import asyncio
import sys

from cadenza_client import AsyncClient, NewRule, NotFound

SCRIPT = 'def main(ctx):\n    ctx.emit("ping", {})\n'


async def main(base_url: str, key: str) -> None:
    async with AsyncClient(base_url, key) as cadenza:
        # Three rules at once: the requests run concurrently.
        created = await asyncio.gather(
            *(
                cadenza.rules.create(NewRule(name=f"ping {n}", schedule="every 1h", code=SCRIPT))
                for n in range(3)
            )
        )
        print("created:", sorted(rule.name for rule in created))

        paused = await cadenza.rules.pause(created[0])
        print("paused:", paused.name, "enabled", paused.enabled)

        async for rule in cadenza.rules.list(enabled=True):
            print("enabled:", rule.name, rule.schedule_text)

        # Trigger one now: the answer is the action the engine will run.
        action = await cadenza.rules.trigger(created[1])
        print("triggered:", action.id, action.status)

        for rule in created:
            await cadenza.rules.delete(rule.id)
        try:
            await cadenza.rules.get(created[0].id)
        except NotFound as gone:
            print("gone:", gone.status, gone.type)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
