"""Inside a python worker: receive one job, confine, compile, run `main(ctx)`, report, exit.

A worker serves exactly one job and then exits, so nothing a script does survives into
another run. Everything read from the job and everything sent back is bounded; results are
serialised here, under the run's limits, never in the engine.
"""

from __future__ import annotations

import base64
import json
import marshal
import os
import resource
import socket
import sys
import types
from typing import Any, NoReturn

from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from sandbox import framing, isolation, restricted
from sandbox.errors import ScriptRejected
from sandbox.scriptapi import Ctx, HostError, Output, to_json_args

MAX_JOB_BYTES = 8 * 1024 * 1024
MAX_REPLY_BYTES = 1024 * 1024
ERROR_CHARS = 2000


class Worker:
    """One job's life in a worker process."""

    def __init__(self, sock: socket.socket, builtins: dict[str, Any]) -> None:
        self._sock = sock
        self._builtins = builtins
        self._output: Output | None = None
        self._reserve: bytearray | None = bytearray(1 << 20)

    def serve(self, baseline_vm_bytes: int) -> NoReturn:
        """Wait for the job, set its limits, run it, report, exit."""
        try:
            job = framing.receive(self._sock, MAX_JOB_BYTES)
        except (EOFError, OSError, ValueError):
            self._exit()
        limits = job["limits"]
        cpu_s = min(limits.get("cpu_s") or limits["timeout_s"], limits["timeout_s"])
        isolation.limit_self(baseline_vm_bytes, limits["memory_bytes"], cpu_s)
        try:
            self._run(job, limits)
        except MemoryError:
            self._reserve = None
            self._finish({"status": "memory", "error": "ran out of memory"})
        self._exit()

    def _run(self, job: dict[str, Any], limits: dict[str, Any]) -> None:
        code = self._code(job)
        if job["mode"] == "compile":
            self._finish({"status": "ok"})
        self._output = Output(limits["output_bytes"], self._output_overflow)
        scope = self._globals()
        try:
            exec(code, scope)
            main = scope.get("main")
            if not callable(main):
                self._finish(
                    {"status": "error", "error": "the script defines no callable main(ctx)"}
                )
            result = main(Ctx(job["context"], self._call))
        except (MemoryError, ScriptRejected):
            raise
        except BaseException as exc:  # the tenant's failure, reported as data
            self._finish({"status": "error", **_describe(exc)})
        self._report_result(result, limits["result_bytes"])

    def _code(self, job: dict[str, Any]) -> types.CodeType:
        if job.get("code"):
            return marshal.loads(base64.b64decode(job["code"]))
        try:
            code = restricted.compile_script(job["source"])
        except ScriptRejected as exc:
            self._finish({"status": "rejected", "error": exc.reason, "line": exc.line})
        except (SyntaxError, ValueError) as exc:
            self._finish(
                {"status": "rejected", "error": str(exc), "line": getattr(exc, "lineno", None)}
            )
        self._send({"t": "compiled", "code": base64.b64encode(marshal.dumps(code)).decode()})
        return code

    def _globals(self) -> dict[str, Any]:
        assert self._output is not None
        return {
            "__builtins__": self._builtins,
            "__name__": "script",
            "__metaclass__": type,
            "_getattr_": restricted.guarded_getattr,
            "_getitem_": restricted.guarded_getitem,
            "_getiter_": iter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_write_": full_write_guard,
            "_inplacevar_": restricted.inplace_var,
            "_print_": self._output.printer(),
        }

    def _report_result(self, result: Any, limit_bytes: int) -> None:
        try:
            text = json.dumps(result, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError) as exc:
            kind = type(result).__name__
            self._finish(
                {"status": "error", "error": f"main() returned a {kind}, which is not JSON: {exc}"}
            )
        size = len(text.encode())
        if size > limit_bytes:
            message = f"main() returned {size} bytes of JSON (limit {limit_bytes} bytes)"
            self._finish({"status": "output_limit", "error": message})
        self._finish({"status": "ok", "result_json": text})

    def _call(self, op: str, args: list[Any]) -> Any:
        self._send({"t": "call", "op": op, "args": to_json_args(args)})
        reply = framing.receive(self._sock, MAX_REPLY_BYTES)
        if "error" in reply:
            raise HostError(reply["error"])
        if reply.get("stop"):
            self._exit()
        return reply.get("value")

    def _output_overflow(self) -> None:
        self._finish({"status": "output_limit", "error": "printed more than the output limit"})

    def _finish(self, message: dict[str, Any]) -> NoReturn:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        message.update(
            t="done",
            cpu_s=usage.ru_utime + usage.ru_stime,
            peak_memory_bytes=usage.ru_maxrss * 1024,
            stdout=self._output.text() if self._output else "",
            truncated=bool(self._output and message.get("status") == "output_limit"),
        )
        self._send(message)
        self._exit()

    def _send(self, message: dict[str, Any]) -> None:
        try:
            framing.send(self._sock, message)
        except OSError:
            self._exit()

    @staticmethod
    def _exit() -> NoReturn:
        sys.stdout.flush()
        os._exit(0)


def _describe(exc: BaseException) -> dict[str, Any]:
    """`{"error": "ZeroDivisionError: division by zero", "line": 3}` for the script's frame."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == restricted.SCRIPT_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        text = str(exc)
    except Exception:
        text = "(unprintable message)"
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return {"error": message[:ERROR_CHARS], "line": line}
