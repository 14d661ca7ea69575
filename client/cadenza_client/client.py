"""`Client` and `AsyncClient`: the same resources, over a blocking or an async httpx client.

with Client("http://127.0.0.1:8000", key="cdz_...") as cadenza:
    for rule in cadenza.rules.list():
        print(rule.name, rule.next_run_at)

async with AsyncClient("http://127.0.0.1:8000", key="cdz_...") as cadenza:
    async for rule in cadenza.rules.list():
        print(rule.name, rule.next_run_at)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Generic

import httpx

from cadenza_client.endpoint import S
from cadenza_client.resources.audit import Audit, TenantAudit
from cadenza_client.resources.calendars import Calendars
from cadenza_client.resources.capabilities import Capabilities, Grants
from cadenza_client.resources.history import RuleHistory
from cadenza_client.resources.notifications import NotificationRoutes
from cadenza_client.resources.queue import Actions, Events, Runs
from cadenza_client.resources.rules import Rules, Schedules
from cadenza_client.resources.server import Server
from cadenza_client.resources.tenancy import (
    Data,
    Hook,
    Keys,
    Outbound,
    Own,
    Secrets,
    Tenants,
)
from cadenza_client.retry import RetryPolicy
from cadenza_client.sessions import AsyncSession, SyncSession, http_options

DEFAULT_TIMEOUT_S = 30.0


class Api(ABC, Generic[S]):
    """Every resource of the API, on one session; `Client` and `AsyncClient` say which.

    `key` is a tenant API key (`cdz_…`), or the operator token for `tenants`; `retry` says
    how often a request is repeated after a 429 or a broken connection (see `RetryPolicy`).
    """

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
    ) -> None:
        session = self._open(http_options(base_url, key, timeout_s), retry or RetryPolicy())
        self.session: S = session
        self.schedules: Schedules[S] = Schedules(session)
        self.rules: Rules[S] = Rules(session)
        self.actions: Actions[S] = Actions(session)
        self.runs: Runs[S] = Runs(session)
        self.events: Events[S] = Events(session)
        self.kv: Data[S] = Data(session)
        self.tenant: Own[S] = Own(session)
        self.keys: Keys[S] = Keys(session)
        self.webhook: Hook[S] = Hook(session)
        self.secrets: Secrets[S] = Secrets(session)
        self.http_allowlist: Outbound[S] = Outbound(session)
        self.capabilities: Capabilities[S] = Capabilities(session)
        self.tenants: Tenants[S] = Tenants(session)
        self.capability_grants: Grants[S] = Grants(session)
        self.server: Server[S] = Server(session)
        self.calendars: Calendars[S] = Calendars(session)
        self.notification_routes: NotificationRoutes[S] = NotificationRoutes(session)
        self.audit: Audit[S] = Audit(session)
        self.tenant_audit: TenantAudit[S] = TenantAudit(session)
        self.rule_history: RuleHistory[S] = RuleHistory(session)

    @staticmethod
    @abstractmethod
    def _open(options: dict[str, Any], retry: RetryPolicy) -> S:
        """The session this kind of client sends through."""


class Client(Api[SyncSession]):
    """A blocking client of one Cadenza server, as one tenant's key (or the operator token)."""

    @staticmethod
    def _open(options: dict[str, Any], retry: RetryPolicy) -> SyncSession:
        return SyncSession(httpx.Client(**options), retry)

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient(Api[AsyncSession]):
    """The async twin of `Client`: the same methods, each answering an awaitable."""

    @staticmethod
    def _open(options: dict[str, Any], retry: RetryPolicy) -> AsyncSession:
        return AsyncSession(httpx.AsyncClient(**options), retry)

    async def close(self) -> None:
        await self.session.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
