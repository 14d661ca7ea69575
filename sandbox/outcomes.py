"""Building an `Outcome`: one run's measurements plus how it ended, for every runtime."""

from __future__ import annotations

import time
from typing import Any

from sandbox.contract import Limits, Outcome, OutcomeStatus, RuntimeName
from sandbox.errors import ScriptRejected
from sandbox.hostcalls import HostSession
from sandbox.report import WorkerReport
from sandbox.source import describe_seconds
from sandbox.text import clean_events, clean_json, clean_text

TRUNCATION_MARKER = "\n[output truncated at {limit} bytes]"


class Run:
    """Collects what is known about one run while it happens; turns it into an Outcome."""

    def __init__(self, runtime: RuntimeName, limits: Limits) -> None:
        self.runtime = runtime
        self.limits = limits
        self.started_s = time.monotonic()
        self.pid: int | None = None
        self.cpu_s: float | None = None
        self.peak_memory_bytes: int | None = None
        self.fuel: int | None = None
        self.stdout = ""
        self.stderr = ""
        self.truncated = False
        self.status: OutcomeStatus | None = None
        self.result: Any = None
        self.error: str | None = None
        self.error_line: int | None = None
        #: The worker's final report, None until it has reported.
        self.worker_report: WorkerReport | None = None

    def report(self, report: WorkerReport) -> None:
        """Take a worker's final report as the run's ending."""
        self.worker_report = report
        self.status, self.error, self.error_line = report.status, report.error, report.line
        self.result, self.cpu_s, self.fuel = report.result, report.cpu_s, report.fuel
        self.peak_memory_bytes = report.peak_memory_bytes
        self.set_output(report.stdout, report.truncated)

    def set_output(self, stdout: str, truncated: bool) -> None:
        self.truncated = truncated
        marker = TRUNCATION_MARKER.format(limit=self.limits.output_bytes)
        self.stdout = stdout + marker if truncated else stdout

    def ended(self, status: OutcomeStatus, error: str, session: HostSession | None) -> Outcome:
        self.status, self.error, self.result = status, error, None
        return self.outcome(session)

    def timed_out(self, session: HostSession | None) -> Outcome:
        elapsed = time.monotonic() - self.started_s
        limit = describe_seconds(self.limits.timeout_s)
        return self.ended(
            OutcomeStatus.TIMEOUT, f"stopped after {elapsed:.1f} s (limit {limit})", session
        )

    def rejected(self, exc: ScriptRejected) -> Outcome:
        self.error_line = exc.line
        return self.ended(OutcomeStatus.REJECTED, str(exc), None)

    def outcome(self, session: HostSession | None) -> Outcome:
        """The run's Outcome, built clean: every piece of text in it passes `sandbox.text`
        here (what `clean_outcome` does to a built one, without building it twice)."""
        status = self.status or OutcomeStatus.CRASHED
        error = self.error
        if (
            error is not None
            and self.error_line is not None
            and status is not OutcomeStatus.REJECTED
        ):
            error = f"line {self.error_line}: {error}"
        return Outcome(
            status=status,
            result=clean_json(self.result) if status is OutcomeStatus.OK else None,
            error=None if error is None else clean_text(error),
            error_line=self.error_line,
            stdout=clean_text(self.stdout),
            stderr=clean_text(self.stderr),
            output_truncated=self.truncated,
            events=clean_events(session.events) if session else (),
            logs=tuple(map(clean_text, session.logs)) if session else (),
            duration_s=time.monotonic() - self.started_s,
            cpu_s=self.cpu_s,
            peak_memory_bytes=self.peak_memory_bytes,
            fuel=self.fuel,
            pid=self.pid,
            host_calls=session.calls if session else 0,
            runtime=self.runtime,
        )
