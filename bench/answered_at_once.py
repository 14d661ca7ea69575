"""`cadenza` with every script run answered at once: `python -m bench.answered_at_once ARGS…`.

A diagnostic for `bench.loop_split`, never a way to run the product: each runtime's `run`
returns an ok outcome without asking a sandbox worker, and everything else (claims, start
marks, records, completions, metrics) is the real engine. What the event loop then spends per
action is what it spends outside the sandbox conversation.
"""

from __future__ import annotations

import sys

from sandbox import Outcome, OutcomeStatus, runtime_base
from sandbox.contract import HostApi, Limits, ScriptContext


async def _answered(
    self: runtime_base.WorkerRuntime,
    script: str | bytes,
    context: ScriptContext,
    limits: Limits,
    host: HostApi,
) -> Outcome:
    return Outcome(status=OutcomeStatus.OK, result=1, runtime=self.name)


def main() -> None:
    runtime_base.WorkerRuntime.run = _answered  # type: ignore[method-assign]
    from api.cli.main import main as cadenza

    sys.argv[0] = "cadenza"
    cadenza()


if __name__ == "__main__":
    main()
