"""The RestrictedPython policy: how a python script is compiled and what its globals hold.

Used only inside a worker process. Attribute access goes through `guarded_getattr` (never a
plain getattr): underscore names, frame/generator/code/traceback internals and the format
methods are refused, and a missing attribute raises AttributeError as in Python; imports are
limited to an allow-list and hand out read-only module views (`sandbox.python.views`).
Reprs carry no memory addresses (`scrub`): they would tell a script where the worker's
objects live.
"""

from __future__ import annotations

import ast
import importlib
import operator
import re
import types
from collections.abc import Callable, Mapping, Sequence
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
#: Modules that C code inside the allowed modules imports by name through the script's
#: `__import__` (`datetime.strptime` imports `_strptime`). A script cannot name them: names
#: starting with an underscore do not compile.
_INTERNAL_MODULES = ("_strptime",)
#: A memory address in a repr (`<object object at 0x7f...>`).
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MISSING = object()


def guarded_getattr(obj: Any, name: str, default: Any = _MISSING) -> Any:
    """`_getattr_` (and `getattr`) for scripts: refuse internals, otherwise RestrictedPython's
    safer_getattr; without a default, a missing attribute raises AttributeError."""
    if type(name) is not str:
        raise TypeError("attribute name must be a str")
    if name in DENIED_ATTRIBUTES or name.startswith(_DENIED_PREFIXES):
        raise AttributeError(f"{name!r} is not available to scripts")
    if isinstance(obj, types.ModuleType):
        raise AttributeError("modules cannot be inspected by scripts")
    found = safer_getattr(obj, name, _MISSING)
    if found is not _MISSING:
        return found
    if default is not _MISSING:
        return default
    raise AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")


def scrub(text: str) -> str:
    """`text` without memory addresses."""
    return _ADDRESS.sub("", text)


def safe_repr(obj: Any) -> str:
    """`repr` for scripts: the same text, without memory addresses."""
    return scrub(repr(obj))


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


def make_importer(views: Mapping[str, types.SimpleNamespace]) -> Callable[..., Any]:
    """`__import__` for scripts: only allow-listed top-level modules, as read-only views."""
    internal = {name: importlib.import_module(name) for name in _INTERNAL_MODULES}

    def guarded_import(
        name: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level == 0 and name in internal:
            return internal[name]
        if level != 0 or name not in views:
            allowed = ", ".join(sorted(views))
            raise ImportError(f"import of {name!r} is not allowed; scripts may import {allowed}")
        return views[name]

    return guarded_import


def build_builtins(
    views: Mapping[str, types.SimpleNamespace], extra: Mapping[str, Any]
) -> dict[str, Any]:
    """RestrictedPython's safe builtins plus a few harmless pure functions, our importer,
    an address-free `repr` and `extra` (such as `HostError`)."""
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
    builtins["repr"] = safe_repr
    builtins.update(extra)
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


def _reject(errors: Sequence[str]) -> Any:
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
