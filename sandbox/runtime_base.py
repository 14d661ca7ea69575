"""The engine's side of every runtime: checks and runs go to confined worker processes.

A runtime here only prepares jobs and keeps what they produce: a verdict per script (may it
run?) for every tenant, and, for runtimes whose code compiles to something worth keeping,
each tenant's compiled artifact. Checking a script (saving a rule) happens in a fresh,
single-use worker under the limits of the save that asked; running one in a warm worker of
its tenant, which loads the code once and keeps it. The engine process never compiles, loads
or runs tenant code. Subclasses say how a script's text becomes the bytes a worker receives.
"""

from __future__ import annotations

from typing import ClassVar

from sandbox.cache import Artifacts, Verdict, Verdicts
from sandbox.contract import HostApi, Limits, Outcome, OutcomeStatus, RuntimeName, ScriptContext
from sandbox.conversation import ArtifactSink, Conversation
from sandbox.errors import SandboxError, ScriptRejected
from sandbox.handle import WorkerHandle
from sandbox.hostcalls import HostSession
from sandbox.job import CodeForm, Job, Mode
from sandbox.outcomes import Run
from sandbox.pool import WorkerPool
from sandbox.source import describe_seconds
from sandbox.warm import REUSABLE_STATUSES, Binding

#: Workers a check may use before a crash is taken as the script's doing.
CHECK_TRIES = 2
#: Compiled artifacts the engine keeps, over all tenants.
ARTIFACT_BYTES = 128 * 1024 * 1024
#: Scripts whose key and bytes are kept (working them out hashes the whole script each run),
#: and the longest script kept: at most about 2 x 512 x 16 KiB.
CODES_KEPT = 512
CODE_KEPT_CHARS = 16 * 1024
#: Statuses of a check that do not depend on the limits it ran under.
_LASTING = frozenset({OutcomeStatus.OK, OutcomeStatus.REJECTED, OutcomeStatus.ERROR})


class WorkerRuntime:
    """`sandbox.Runtime` over the worker pool; see the module docstring."""

    name: ClassVar[RuntimeName]
    #: Whether workers hand back compiled code to keep per tenant.
    keeps_artifacts: ClassVar[bool] = False
    #: Whether the runtime stops itself at the deadline (it then gets a grace to report).
    stops_itself: ClassVar[bool] = True

    def __init__(self, pool: WorkerPool, compile_limits: Limits) -> None:
        self._pool = pool
        self._compile_limits = compile_limits
        self._verdicts = Verdicts()
        self._artifacts = Artifacts(ARTIFACT_BYTES) if self.keeps_artifacts else None
        self._codes: dict[str | bytes, tuple[str, bytes]] = {}

    def code(self, script: str | bytes) -> tuple[str, bytes]:
        """(key, bytes for the worker) of a script; ScriptRejected if it cannot be one."""
        raise NotImplementedError

    def _code_of(self, script: str | bytes) -> tuple[str, bytes]:
        """`code(script)`, kept for the scripts that run again and again (every run of a
        rule passes its script's text, so the key would otherwise be hashed every run)."""
        found = self._codes.get(script)
        if found is None:
            found = self.code(script)
            if len(script) <= CODE_KEPT_CHARS:
                if len(self._codes) >= CODES_KEPT:
                    self._codes.clear()
                self._codes[script] = found
        return found

    async def validate(self, script: str | bytes, limits: Limits | None = None) -> None:
        """Raise ScriptRejected (line + reason) unless the script compiles and may run,
        checked in a fresh worker within `limits` (the save's; default the compile limits)."""
        key, blob = self._code_of(script)
        verdict = self._verdicts.get(key) or await self._check(key, blob, limits)
        if verdict.reason is not None:
            raise ScriptRejected(verdict.reason, verdict.line)

    async def _check(self, key: str, blob: bytes, limits: Limits | None) -> Verdict:
        bounded = self._check_limits(limits)
        job = Job(self.name, Mode.CHECK, key, CodeForm.SOURCE, bounded)
        for _ in range(CHECK_TRIES):
            run = Run(self.name, bounded)
            handle = await self._pool.acquire(None)
            try:
                outcome = await Conversation(self._pool, handle, run, None, None).converse(
                    job, blob, self._grace_s(bounded)
                )
            finally:
                self._pool.release(handle)
            # A worker that died without a word may have been killed from outside (OOM
            # killer, a starved machine): try a fresh one before blaming the script.
            if outcome.status is not OutcomeStatus.CRASHED:
                break
        verdict = _verdict(outcome, bounded)
        if outcome.status in _LASTING:
            self._verdicts.put(key, verdict)
        return verdict

    def _check_limits(self, limits: Limits | None) -> Limits:
        if limits is None:
            return self._compile_limits
        timeout_s = min(limits.timeout_s, self._compile_limits.timeout_s)
        return Limits(timeout_s=timeout_s, memory_bytes=self._compile_limits.memory_bytes)

    async def run(
        self, script: str | bytes, context: ScriptContext, limits: Limits, host: HostApi
    ) -> Outcome:
        """Run the script once in a worker of its tenant; every failure is the Outcome."""
        run = Run(self.name, limits)
        try:
            key, blob = self._code_of(script)
            verdict = self._verdicts.get(key)
            if verdict is not None and verdict.reason is not None:
                raise ScriptRejected(verdict.reason, verdict.line)
        except ScriptRejected as exc:
            return run.rejected(exc)
        binding = Binding(context.tenant_id, limits.memory_bytes, self.name)
        handle = await self._pool.acquire(binding, limits.effective_cpu_s)
        form, code = self._code_for(handle, context.tenant_id, key, blob)
        job = Job(self.name, Mode.RUN, key, form, limits, context.to_json())
        sink = self._sink(context.tenant_id, key) if form is CodeForm.SOURCE else None
        try:
            conversation = Conversation(self._pool, handle, run, HostSession(host, limits), sink)
            return await conversation.converse(job, code, self._grace_s(limits))
        finally:
            self._after(handle, key, run)

    def _code_for(
        self, handle: WorkerHandle, tenant_id: str, key: str, source: bytes
    ) -> tuple[CodeForm, bytes | None]:
        """The code a worker needs: nothing if it holds it, else the tenant's artifact if
        there is one, else the source."""
        if key in handle.holds:
            return CodeForm.HELD, None
        artifact = self._artifacts.get(tenant_id, key) if self._artifacts else None
        if artifact is not None:
            return CodeForm.ARTIFACT, artifact
        return CodeForm.SOURCE, source

    def _sink(self, tenant_id: str, key: str) -> ArtifactSink | None:
        artifacts = self._artifacts
        if artifacts is None:
            return None
        return lambda data: artifacts.put(tenant_id, key, data)

    def _after(self, handle: WorkerHandle, key: str, run: Run) -> None:
        """Remember what the worker now holds and what its report says of the script."""
        report = run.worker_report
        if report is not None and report.status in REUSABLE_STATUSES:
            handle.holds.add(key)
        if report is not None and report.status is OutcomeStatus.REJECTED:
            self._verdicts.put(key, Verdict(report.error, report.line))
        self._pool.release(handle, report)

    def _grace_s(self, limits: Limits) -> float:
        return min(0.25, limits.timeout_s / 2) if self.stops_itself else 0.0


def _verdict(outcome: Outcome, limits: Limits) -> Verdict:
    """What a check's outcome says of the script, in words a tenant can act on."""
    status, error = outcome.status, outcome.error or ""
    if status is OutcomeStatus.OK:
        return Verdict()
    if status is OutcomeStatus.REJECTED:
        return Verdict(error, outcome.error_line)
    if status is OutcomeStatus.TIMEOUT:
        took = describe_seconds(limits.timeout_s)
        return Verdict(
            f"checking the script took longer than {took}: simplify it or raise timeout_ms"
        )
    if status is OutcomeStatus.KILLED:
        raise SandboxError("the sandbox is stopping")
    if status is OutcomeStatus.CRASHED:
        return Verdict(f"the script could not be checked: {error}")
    return Verdict(f"the script's top level failed: {error}", outcome.error_line)
