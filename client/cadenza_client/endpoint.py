"""Methods of the client, written once for the sync and the async client.

A resource class declares each route as a function from its `Route` and the caller's arguments
to a `Call`:

    class Rules(Resource[S]):
        @operation("GET", "/v1/rules/{rule_id}")
        def get(route: Route, rule: RuleRef) -> Call[Rule]:
            return route.call(reading(Rule), path={"rule_id": rule_id(rule)})

On `Client` (sync) `client.rules.get(rule)` returns the `Rule`; on `AsyncClient` it returns an
awaitable of it. `listing` turns a one-page method into one that iterates every item of every
page (an `Iterator`, or an `AsyncIterator`). The routes declared here are what the coverage test
compares with the server's OpenAPI document.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from cadenza_client.call import Call, Paged, Route
from cadenza_client.sessions import AsyncSession, SyncSession

P = ParamSpec("P")
T = TypeVar("T", covariant=True)
X = TypeVar("X")
S = TypeVar("S", SyncSession, AsyncSession)

Builder = Callable[Concatenate[Route, P], Call[T]]


class Resource(Generic[S]):
    """A group of routes (rules, actions...) bound to one session."""

    def __init__(self, session: S) -> None:
        self.session: S = session


def _bind(build: Callable[..., Any], send: Callable[[Any], Any], route: Route) -> Any:
    """`build`'s call sent through `send`, with `build`'s name, docs and signature (less route)."""

    @functools.wraps(build)
    def method(*args: Any, **kwargs: Any) -> Any:
        return send(build(route, *args, **kwargs))

    signature = inspect.signature(build)
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=list(signature.parameters.values())[1:]
    )
    return method


class Operation(Generic[P, T]):
    """One route as a method: sends its call and answers the result."""

    def __init__(self, route: Route, build: Builder[P, T]) -> None:
        self.route = route
        self.build = build

    @overload
    def __get__(self, resource: None, owner: type) -> Operation[P, T]: ...
    @overload
    def __get__(self, resource: Resource[SyncSession], owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, resource: Resource[AsyncSession], owner: type
    ) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, resource: Resource[Any] | None, owner: type) -> Any:
        if resource is None:
            return self
        return _bind(self.build, resource.session.send, self.route)


class Listing(Generic[P, X]):
    """A paginated route as a method that iterates every item, page after page."""

    def __init__(self, page: Operation[P, Paged[X]]) -> None:
        self.page = page

    @overload
    def __get__(self, resource: None, owner: type) -> Listing[P, X]: ...
    @overload
    def __get__(self, resource: Resource[SyncSession], owner: type) -> Callable[P, Iterator[X]]: ...
    @overload
    def __get__(
        self, resource: Resource[AsyncSession], owner: type
    ) -> Callable[P, AsyncIterator[X]]: ...
    def __get__(self, resource: Resource[Any] | None, owner: type) -> Any:
        if resource is None:
            return self
        return _bind(self.page.build, resource.session.iterate, self.page.route)


def operation(method: str, template: str) -> Callable[[Builder[P, T]], Operation[P, T]]:
    """Declare a method of a resource calling `method template`."""

    def declare(build: Builder[P, T]) -> Operation[P, T]:
        return Operation(Route(method, template), build)

    return declare


def listing(page: Operation[P, Paged[X]]) -> Listing[P, X]:
    """Declare a method iterating all items of the pages `page` reads."""
    return Listing(page)
