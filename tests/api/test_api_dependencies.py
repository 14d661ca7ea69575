"""Every route answers on the event loop: FastAPI runs a plain `def` endpoint or dependency in
its thread pool, and that hand-off (a thread woken, the answer handed back) was a large part of
a small request's CPU. Our dependencies only read the app's state or check parameters, so each
is a coroutine function; this walks every route of every router, so a new `def` one fails."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from api.app import ROUTERS


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _runs_on_the_loop(call: Any) -> bool:
    """A coroutine function, or an instance whose `__call__` is one (FastAPI's `HTTPBearer`)."""
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(type(call).__call__)


def test_no_endpoint_or_dependency_runs_in_a_thread() -> None:
    routes = [r for m in ROUTERS for r in m.router.routes if isinstance(r, APIRoute)]
    assert len(routes) > 50
    in_threads = {
        f"{route.path} {getattr(call, '__qualname__', call)}"
        for route in routes
        for call in (route.endpoint, *_calls(route.dependant))
        if call is not None and not _runs_on_the_loop(call)
    }
    assert in_threads == set()
