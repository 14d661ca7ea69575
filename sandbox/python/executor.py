"""The `python` runtime inside a worker: compile with RestrictedPython, run `main(ctx)`, report.

Each run gets fresh globals, fresh module views (`sandbox.python.views`), a fresh decimal
context and a reseeded `random`, so a script cannot tell whether its process is new. Code the
worker compiled is sent to the engine once (marshal), for its tenant's next workers, and kept
for this worker's next runs of the same script.
"""

from __future__ import annotations

import decimal
import gc
import marshal
import random
import types
from collections.abc import Callable
from typing import Any, NoReturn

from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from sandbox.errors import ScriptRejected
from sandbox.job import CodeForm, Job, Mode
from sandbox.output import Output
from sandbox.python import restricted, views
from sandbox.python.scriptapi import Ctx, HostError, Kv, Rule
from sandbox.results import ERROR_CHARS, value_report
from sandbox.warm import REUSABLE_STATUSES
from sandbox.worker import Refused, Worker

#: The module name scripts see for the objects they are handed (`repr(ctx)`), instead of the
#: sandbox's own module paths.
PUBLIC_MODULE = "cadenza"
for _cls in (Ctx, HostError, Kv, Rule):
    _cls.__module__ = PUBLIC_MODULE


class _Ended(Exception):
    """Raised outside the tenant's code once the run's report is known."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report.get("status"))
        self.report = report


class PythonExecutor:
    """Built in the zygote (the views and builtins are shared, read-only, by every worker)."""

    def __init__(self) -> None:
        self._views = views.build_views(restricted.ALLOWED_MODULES)
        self._builtins = restricted.build_builtins(self._views, {"HostError": HostError})
        self._held: dict[str, types.CodeType] = {}
        self._reserve: bytearray | None = None

    def serve(self, job: Job, worker: Worker) -> NoReturn:
        self._reserve = bytearray(1 << 20)  # freed on MemoryError, so the report can be made
        while True:
            report = self._attempt(job, worker)
            if report["status"] in REUSABLE_STATUSES:
                gc.collect()  # cycles the script made are freed inside its own run
            worker.finish(report)
            job = worker.next_job()

    def _attempt(self, job: Job, worker: Worker) -> dict[str, Any]:
        try:
            return self._run(job, worker)
        except _Ended as ended:
            return ended.report
        except MemoryError:
            self._reserve = None
            return {"status": "memory", "error": "ran out of memory"}

    def _run(self, job: Job, worker: Worker) -> dict[str, Any]:
        code = self._code(job, worker)
        if job.mode is Mode.CHECK:
            return {"status": "ok"}
        views.refresh(self._views)
        decimal.setcontext(decimal.Context())
        random.seed()
        scope = self._globals(worker.start_output(lambda: _overflow(worker)))
        try:
            exec(code, scope)
            main = scope.get("main")
            if not callable(main):
                return {"status": "error", "error": "the script defines no callable main(ctx)"}
            result = main(Ctx(job.context or {}, _host_call(worker)))
            return value_report(result, job.limits.result_bytes)
        except MemoryError:
            raise
        except BaseException as exc:  # the tenant's failure, reported as data
            return {"status": "error", **_describe(exc)}
        finally:
            scope.clear()  # breaks the function <-> globals cycle, frees the run's objects

    def _code(self, job: Job, worker: Worker) -> types.CodeType:
        if job.form is CodeForm.HELD:
            code = self._held.get(job.key)
            if code is None:
                raise _Ended({"status": "error", "error": f"the worker lost code {job.key}"})
        elif job.form is CodeForm.ARTIFACT:
            code = _load(worker.blob or b"")
        else:
            code = _compile((worker.blob or b"").decode())
            if job.mode is Mode.RUN:
                worker.artifact(marshal.dumps(code))
        if job.mode is Mode.RUN:
            self._held[job.key] = code
        return code

    def _globals(self, output: Output) -> dict[str, Any]:
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
            "_print_": _printer(output),
        }


def _load(artifact: bytes) -> types.CodeType:
    """Code another worker of this tenant compiled (never another tenant's)."""
    try:
        code = marshal.loads(artifact)
    except (ValueError, EOFError, TypeError) as exc:
        code = exc
    if not isinstance(code, types.CodeType):
        error = f"the worker could not load the compiled script: {code!r}"[:ERROR_CHARS]
        raise _Ended({"status": "error", "error": error})
    return code


def _compile(source: str) -> types.CodeType:
    """Compile the script; any failure (not only a syntax error) rejects it, with its line."""
    try:
        return restricted.compile_script(source)
    except ScriptRejected as exc:
        raise _Ended({"status": "rejected", "error": exc.reason, "line": exc.line}) from None
    except MemoryError:
        raise
    except Exception as exc:
        line = getattr(exc, "lineno", None)
        error = f"the script cannot be compiled: {type(exc).__name__}: {exc}"
        raise _Ended({"status": "rejected", "error": error, "line": line}) from None


def _host_call(worker: Worker) -> Callable[[str, list[Any]], Any]:
    """The `call` behind `ctx`: logs go one way; a refused call raises HostError."""

    def call(op: str, args: list[Any]) -> Any:
        if op == "log":
            if not worker.log(restricted.scrub(str(args[0]))):
                _stop(worker, "logged more than the output limit")
            return None
        try:
            return worker.call(op, args)
        except Refused as exc:
            raise HostError(str(exc)) from None

    return call


def _overflow(worker: Worker) -> NoReturn:
    _stop(worker, "printed more than the output limit")


def _stop(worker: Worker, error: str) -> NoReturn:
    """End the run from inside the tenant's `print` or `log`: report and exit there (an
    exception could be caught by the script)."""
    worker.finish({"status": "output_limit", "error": error})
    worker.exit()


def _printer(output: Output) -> type:
    """The `_print_` class RestrictedPython instantiates at the top of every function."""

    class Printer:
        def __init__(self, _getattr_: Any = None) -> None:
            pass

        def __call__(self) -> str:
            return output.text()

        def _call_print(self, *objects: Any, sep: str | None = " ", end: str | None = "\n") -> None:
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if not isinstance(sep, str) or not isinstance(end, str):
                raise TypeError("print(): sep and end must be str")
            output.write(restricted.scrub(sep.join(str(o) for o in objects) + end))

    return Printer


def _describe(exc: BaseException) -> dict[str, Any]:
    """`{"error": "ZeroDivisionError: division by zero", "line": 3}` for the script's frame."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == restricted.SCRIPT_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        text = restricted.scrub(str(exc))
    except Exception:
        text = "(unprintable message)"
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return {"error": message[:ERROR_CHARS], "line": line}
