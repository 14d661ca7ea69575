"""The sandbox's exception root.

A failing *script* is never an exception: it is an `Outcome`. These exceptions are for the
caller's mistakes and for scripts rejected before they ever run.
"""

from __future__ import annotations


class SandboxError(Exception):
    """The sandbox could not do what was asked (misconfiguration or an engine-side failure)."""


class ScriptRejected(SandboxError):
    """The script does not compile or validate; fix the named line and save it again."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line is not None else reason)
