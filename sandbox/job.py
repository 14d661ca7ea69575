"""A job for a worker process, as the engine sends it and the worker reads it.

A job names its runtime and its code by a key. The code travels at most once per worker: the
job says whether the worker already holds it (`HELD`), or whether a `BLOB` frame with its
source or with an artifact compiled by an earlier worker of the same tenant follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from sandbox.contract import Limits, RuntimeName
from sandbox.framing import dumps


class Mode(StrEnum):
    """What the worker does with the code."""

    #: Run `main(ctx)` once.
    RUN = "run"
    #: Only check that the code compiles and may run (saving a rule); a fresh worker each time.
    CHECK = "check"


class CodeForm(StrEnum):
    """How the job's code reaches the worker."""

    #: The worker loaded it for an earlier job.
    HELD = "held"
    #: A BLOB frame with the source (python/micropython text, wasm binary or WAT) follows.
    SOURCE = "source"
    #: A BLOB frame with an artifact compiled by another worker of the same tenant follows.
    ARTIFACT = "artifact"


@dataclass(frozen=True)
class Job:
    runtime: RuntimeName
    mode: Mode
    key: str
    form: CodeForm
    limits: Limits
    #: What `main(ctx)` is told (`ScriptContext.to_json`); None for a check.
    context: dict[str, Any] | None = None

    def encode(self) -> bytes:
        """The JSON a JOB frame carries. Every part but the context is the same run after run
        of a rule, so only the context is encoded each time."""
        head = _head(self.runtime, self.mode, self.key, self.form, self.limits)
        return f"{head}{dumps(self.context)}}}".encode()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        """Rebuild a job in the worker (raises KeyError/TypeError/ValueError if malformed)."""
        return cls(
            runtime=RuntimeName(data["runtime"]),
            mode=Mode(data["mode"]),
            key=str(data["key"]),
            form=CodeForm(data["form"]),
            limits=Limits(**data["limits"]),
            context=data["context"],
        )


@lru_cache(maxsize=1024)
def _head(runtime: RuntimeName, mode: Mode, key: str, form: CodeForm, limits: Limits) -> str:
    """A job's JSON up to its context's value (see `Job.encode`)."""
    fixed = {"runtime": runtime, "mode": mode, "key": key, "form": form, "limits": vars(limits)}
    return dumps(fixed)[:-1] + ',"context":'
