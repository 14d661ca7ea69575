"""The RestrictedPython policy: how a python script is compiled and what its globals hold.

Used only inside a worker process. Attribute access goes through `guarded_getattr` (never a
plain getattr): underscore names, frame/generator/code/traceback internals and the format
methods are refused; imports are limited to an allow-list and hand out read-only module
views that contain no modules (so `datetime.sys` or `json.codecs` do not exist).
"""

from __future__ import annotations

import ast
import operator
import types
from collections.abc import Callable
from typing import Any

from RestrictedPython import compile_restricted_exec, safe_builtins
from RestrictedPython.Guards import (
    safer_getattr,
)
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from sandbox.errors import ScriptRejected

SCRIPT_FILENAME = "<script>"
ALLOWED_MODULES = (
    "math",
    "json",
    "datetime",
    "re",
    "random",
    "statistics",
    "decimal",
    "fractions",
    "itertools",
    "collections",
    "hashlib",
    "base64",
    "textwrap",
    "time",
    "bisect",
    "heapq",
)
#: Attributes no script may read, on top of underscore names and RestrictedPython's list.
DENIED_ATTRIBUTES = frozenset(
    {"format", "format_map", "mro", "gi_frame", "f_back", "tb_frame", "cr_frame", "ag_frame"}
    | INSPECT_ATTRIBUTES
)
_DENIED_PREFIXES = ("f_", "tb_", "gi_", "cr_", "ag_", "co_", "func_")
#: Module members that would reach the outside world or run arbitrary code.
_DENIED_MEMBERS = frozenset({"load", "dump", "namedtuple"})


def module_view(module: types.ModuleType) -> types.SimpleNamespace:
    """A namespace with the module's public, non-module members (no `sys`, `os`, `codecs`)."""
    members = {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name not in _DENIED_MEMBERS
    }
    return types.SimpleNamespace(**members)


def guarded_getattr(obj: Any, name: str, default: Any = None) -> Any:
    """`_getattr_` for scripts: refuse internals, otherwise RestrictedPython's safer_getattr."""
    if type(name) is not str:
        raise TypeError("attribute name must be a str")
    if name in DENIED_ATTRIBUTES or name.startswith(_DENIED_PREFIXES):
        raise AttributeError(f"{name!r} is not available to scripts")
    if isinstance(obj, types.ModuleType):
        raise AttributeError("modules cannot be inspected by scripts")
    return safer_getattr(obj, name, default)


def guarded_getitem(obj: Any, key: Any) -> Any:
    """`_getitem_`: plain indexing; a str key starting with an underscore is refused on mappings
    that are namespaces (module views), so `vars()`-style tricks find nothing."""
    if isinstance(obj, types.SimpleNamespace):
        raise TypeError("namespaces are not subscriptable")
    return obj[key]


_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
}


def inplace_var(op: str, x: Any, y: Any) -> Any:
    """`_inplacevar_`: the augmented assignments, nothing else."""
    return _INPLACE[op](x, y)


def make_importer(views: dict[str, types.SimpleNamespace]) -> Callable[..., Any]:
    """`__import__` for scripts: only allow-listed top-level modules, as read-only views."""

    def guarded_import(
        name: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level != 0 or name not in views:
            allowed = ", ".join(sorted(views))
            raise ImportError(f"import of {name!r} is not allowed; scripts may import {allowed}")
        return views[name]

    return guarded_import


def build_builtins(views: dict[str, types.SimpleNamespace]) -> dict[str, Any]:
    """RestrictedPython's safe builtins plus a few harmless pure functions and our importer."""
    builtins = dict(safe_builtins)
    for name in ("setattr", "delattr"):
        builtins.pop(name, None)
    pure: dict[str, Any] = {
        "dict": dict, "list": list, "tuple": tuple, "set": set, "frozenset": frozenset,
        "min": min, "max": max, "sum": sum, "sorted": sorted, "reversed": reversed,
        "enumerate": enumerate, "zip": zip, "map": map, "filter": filter, "any": any,
        "all": all, "bytes": bytes, "iter": iter, "next": next,
    }  # fmt: skip
    builtins.update(pure)
    builtins["_getattr_"] = builtins["getattr"] = guarded_getattr
    builtins["__import__"] = make_importer(views)
    return builtins


def compile_script(source: str) -> types.CodeType:
    """Compile with RestrictedPython and check `main(ctx)`; raise ScriptRejected(line, reason)."""
    try:
        result = compile_restricted_exec(source, filename=SCRIPT_FILENAME)
    except (RecursionError, MemoryError) as exc:
        raise ScriptRejected(
            f"the script is nested too deeply to compile ({type(exc).__name__})"
        ) from None
    if result.errors or result.code is None:
        return _reject(result.errors)
    _check_main(source)
    return result.code


def _reject(errors: tuple[str, ...]) -> Any:
    first = errors[0] if errors else "the script does not compile"
    line: int | None = None
    head, _, rest = first.partition(":")
    if head.startswith("Line ") and head[5:].strip().isdigit():
        line, first = int(head[5:]), rest.strip()
    raise ScriptRejected(first, line)


def _check_main(source: str) -> None:
    tree = ast.parse(source)
    mains = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    if not mains:
        raise ScriptRejected("the script must define a top-level function main(ctx)")
    args = mains[-1].args
    positional = len(args.posonlyargs) + len(args.args)
    required = positional - len(args.defaults)
    if required > 1 or (positional < 1 and args.vararg is None):
        raise ScriptRejected(
            "main must take exactly one argument: def main(ctx):", mains[-1].lineno
        )
