"""What `import json` gives a python script: a read-only view of the module, fresh every run.

A view holds the module's public functions and classes and nothing that reaches further: no
modules (so `datetime.sys` or `json.codecs` do not exist), no `load`/`dump` (files) or
`namedtuple` (it runs `exec`), no C capsules. A warm worker serves many runs of one tenant,
so nothing a run can change may outlive it: mutable module data is handed out frozen
(`hashlib.algorithms_available` is a frozenset) and the decimal context templates are copies
made anew for every run (changing `decimal.DefaultContext.traps` changed every later run's
contexts when the view held the real template).
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import types
from typing import Any

#: Module members that would reach the outside world or run arbitrary code.
_DENIED_MEMBERS = frozenset({"load", "dump", "namedtuple"})
_CAPSULE = type(datetime.datetime_CAPI)
#: The decimal module's templates, copied into the view before every run.
_DECIMAL_TEMPLATES = ("DefaultContext", "BasicContext", "ExtendedContext")


class ModuleView(types.SimpleNamespace):
    """A module as a script sees it; its repr names the module and nothing else."""

    def __repr__(self) -> str:
        return f"<module {self.__module_name!r}>"

    def __init__(self, module_name: str, members: dict[str, Any]) -> None:
        super().__init__(**members)
        object.__setattr__(self, "_ModuleView__module_name", module_name)


def _frozen(value: Any) -> Any:
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return types.MappingProxyType(dict(value))
    return value


def module_view(module: types.ModuleType) -> ModuleView:
    """The public, non-module, frozen members of `module`."""
    members = {
        name: _frozen(value)
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType | _CAPSULE)
        and name not in _DENIED_MEMBERS
    }
    return ModuleView(module.__name__, members)


def build_views(names: tuple[str, ...]) -> dict[str, ModuleView]:
    """A view of each allowed module (in the zygote, once)."""
    return {name: module_view(importlib.import_module(name)) for name in names}


def refresh(views: dict[str, ModuleView]) -> None:
    """Start a run: fresh copies of what a script could change (the decimal templates)."""
    view = views.get("decimal")
    if view is not None:
        for name in _DECIMAL_TEMPLATES:
            object.__setattr__(view, name, getattr(decimal, name).copy())
