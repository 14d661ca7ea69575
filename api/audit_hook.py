"""The audit hook: every change a request commits gets its audit row in the same transaction.

One hook instead of a line in every route: `AuditScopes` (ASGI middleware) opens a scope per
request with its request id; the authentication dependencies name the actor; SQLAlchemy events
on the API's engine collect the INSERT/UPDATE/DELETE statements the request's task runs, and the
`commit` event appends the row (`tenants.audit_log.append`) just before the database commits.
So a change that rolls back leaves no row, and a row that cannot be written fails the commit:
a change never lacks its row. Routes added later are audited without touching them.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.audit_objects import AuditedRoute, audited_object
from tenants.audit_log import AuditDraft, append

#: Tables whose writes are bookkeeping of the system itself, never a change someone made.
UNAUDITED_TABLES = frozenset({"audit_log", "usage", "tenant_leases", "engine_nodes"})
REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_WRITES = "cadenza_audit_writes"


@dataclass
class AuditScope:
    """One request's audit context; the actor is filled in once the caller is authenticated."""

    asgi: Scope
    request_id: str
    actor: str | None = None
    actor_prefix: str | None = None
    tenant_id: str | None = None
    task: asyncio.Task[Any] | None = None


_current: ContextVar[AuditScope | None] = ContextVar("cadenza_audit_scope", default=None)


def identify(actor: str, actor_prefix: str | None, tenant_id: str | None) -> None:
    """Name who makes this request's changes (None tenant: the operator, taken from the path)."""
    scope = _current.get()
    if scope is not None:
        scope.actor, scope.actor_prefix, scope.tenant_id = actor, actor_prefix, tenant_id
        scope.task = asyncio.current_task()


@contextmanager
def suspended() -> Iterator[None]:
    """Writes in this block are bookkeeping (a key's last use), not changes to audit."""
    token = _current.set(None)
    try:
        yield
    finally:
        _current.reset(token)


class AuditScopes:
    """ASGI middleware: a scope and a request id (the caller's `X-Request-Id` when it is a
    plain token, a new one otherwise) per HTTP request, echoed in the response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (REQUEST_ID_HEADER.encode(), request_id.encode()),
                ]
            await send(message)

        token = _current.set(AuditScope(scope, request_id))
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            _current.reset(token)


def _request_id(scope: Scope) -> str:
    given = dict(scope.get("headers", [])).get(REQUEST_ID_HEADER.encode(), b"")
    text = given.decode("latin-1")
    return text if _REQUEST_ID.fullmatch(text) else uuid.uuid4().hex


def install(db: AsyncEngine) -> None:
    """Hook the audit on `db` (once, however many apps share it)."""
    engine = db.sync_engine
    if not event.contains(engine, "commit", _on_commit):
        event.listen(engine, "begin", _forget)
        event.listen(engine, "rollback", _forget)
        event.listen(engine, "after_cursor_execute", _on_execute)
        event.listen(engine, "commit", _on_commit)


def _active() -> AuditScope | None:
    scope = _current.get()
    if scope is None or scope.actor is None or scope.task is not asyncio.current_task():
        return None
    return scope


def _forget(conn: Connection) -> None:
    """Drop the writes noted in the transaction ending. An invalidated connection (a query
    cancelled mid-flight) has none worth keeping: the pool clears its `info` when it reconnects
    it, and reading `info` now would raise from inside the rollback, over the cancellation."""
    if not conn.invalidated:
        conn.info.pop(_WRITES, None)


def _on_execute(
    conn: Connection, _cursor: Any, _sql: str, _params: Any, context: Any, _many: bool
) -> None:
    if _active() is None or context is None:
        return
    kinds = {"insert": context.isinsert, "update": context.isupdate, "delete": context.isdelete}
    kind = next((name for name, is_kind in kinds.items() if is_kind), None)
    table = getattr(getattr(context.compiled, "statement", None), "table", None)
    if kind is None or table is None or table.name in UNAUDITED_TABLES:
        return
    written = (table.name, kind, [dict(p) for p in context.compiled_parameters])
    conn.info.setdefault(_WRITES, []).append(written)


def _route_of(asgi: Scope) -> AuditedRoute:
    """The template of the route that served the request (its raw path if none matched)."""
    template = getattr(asgi.get("route"), "path_format", None) or asgi["path"]
    return AuditedRoute(str(template), asgi.get("path_params", {}))


def _on_commit(conn: Connection) -> None:
    written = conn.info.pop(_WRITES, None)
    scope = _active()
    if not written or scope is None or scope.actor is None:
        return
    target = audited_object(_route_of(scope.asgi), scope.tenant_id, written)
    draft = AuditDraft(
        tenant_id=target.tenant_id,
        at=datetime.now(UTC),
        actor=scope.actor,
        actor_prefix=scope.actor_prefix,
        method=scope.asgi["method"],
        route=target.route,
        object_kind=target.kind,
        object_id=target.object_id,
        request_id=scope.request_id,
        written=tuple(written),
    )
    append(conn, draft)
