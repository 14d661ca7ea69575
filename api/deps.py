"""Request dependencies, as `Annotated` aliases: the database, the engine, and who is calling.

Every tenant-scoped handler takes its tenant from `Caller`, and `Caller` comes from exactly
one place: `current_caller`, which authenticates the API key, loads its tenant and charges
the tenant's rate limit. Handlers never read a tenant id from the request.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import BackgroundTasks, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncEngine

from api import audit_hook
from api.auth_throttle import AuthThrottle, client_of, prefix_of
from api.errors import BadParameter, EngineUnavailable, Forbidden, Unauthorized
from api.ratelimit import RateLimiter
from api.settings import Settings
from engine.service import EngineService
from tenants.audit_log import OPERATOR
from tenants.faults import as_unavailable
from tenants.key_usage import is_stale, mark_used
from tenants.keys import ROLE_RANK, ApiKey, Role
from tenants.registry import Tenant, TenantStatus, authenticate
from tenants.secret_box import SecretBox

log = logging.getLogger("cadenza.api")
MAX_SECRET_CHARS = 200
#: The `credential` label of the authentication metrics.
API_KEY = "api_key"
OPERATOR_TOKEN = "operator_token"

_api_key = HTTPBearer(
    scheme_name="ApiKey", description="A tenant API key: `Bearer cdz_…`.", auto_error=False
)
_operator = HTTPBearer(
    scheme_name="OperatorToken",
    description="The operator token (`CADENZA_ADMIN_TOKEN`).",
    auto_error=False,
)
Credentials = HTTPAuthorizationCredentials | None


async def _db(request: Request) -> AsyncEngine:
    return request.app.state.db  # type: ignore[no-any-return]


async def _settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def _throttle(request: Request) -> AuthThrottle:
    return request.app.state.auth_throttle  # type: ignore[no-any-return]


async def _secret_box(request: Request) -> SecretBox:
    return request.app.state.secret_box  # type: ignore[no-any-return]


async def _engine(request: Request) -> EngineService:
    service = request.app.state.engine
    if service is None:
        raise EngineUnavailable()
    return service  # type: ignore[no-any-return]


DbDep = Annotated[AsyncEngine, Depends(_db)]
SettingsDep = Annotated[Settings, Depends(_settings)]
SecretBoxDep = Annotated[SecretBox, Depends(_secret_box)]
EngineDep = Annotated[EngineService, Depends(_engine)]


async def refuse_nul(request: Request) -> None:
    """No path segment or query parameter may hold NUL (PostgreSQL text cannot store it)."""
    if "\x00" in request.scope["path"]:
        raise BadParameter("the path contains a NUL character", field="path")
    for name, value in request.query_params.multi_items():
        if "\x00" in value or "\x00" in name:
            raise BadParameter(f"query parameter {name!r} contains a NUL character", field=name)


@dataclass(frozen=True)
class Caller:
    """The authenticated key and its tenant: the only source of a request's tenant id."""

    key: ApiKey
    tenant: Tenant

    @property
    def tenant_id(self) -> str:
        return self.tenant.id


async def current_caller(
    request: Request,
    db: DbDep,
    credentials: Annotated[Credentials, Depends(_api_key)],
    background: BackgroundTasks,
) -> Caller:
    """Authenticate the Bearer API key (401 if missing, unknown or revoked; 429 for a client
    that failed too often) and rate-limit its tenant."""
    client, throttle = client_of(request), _throttle(request)
    throttle.check(client, API_KEY)
    secret = credentials.credentials if credentials else ""
    if not secret:
        raise Unauthorized()
    found = await _authenticated(db, secret)
    if found is None:
        throttle.failed(client, API_KEY, prefix_of(secret))
        raise Unauthorized("unknown or revoked API key: ask your tenant's admin for a key")
    key, tenant = found
    limiter: RateLimiter = request.app.state.rate_limiter
    limiter.hit(tenant.id, int(tenant.quotas["requests_per_minute"]))
    now = datetime.now(UTC)
    if is_stale(key.last_used_at, now):
        background.add_task(_mark_used, db, key.id, now)
    audit_hook.identify(key.id, key.prefix, tenant.id)
    return Caller(key=key, tenant=tenant)


async def _mark_used(db: AsyncEngine, key_id: str, now: datetime) -> None:
    """Record the key's use after the answer is sent: bookkeeping never delays a request, nor
    fails one that only reads when the database cannot take a write (a later use records it)."""
    try:
        with audit_hook.suspended():
            async with db.begin() as conn:
                await mark_used(conn, key_id, now)
    except Exception as exc:  # any failure: the next use of the key tries again
        log.info("could not record the use of key %s: %s", key_id, as_unavailable(exc) or exc)


async def _authenticated(db: AsyncEngine, secret: str) -> tuple[ApiKey, Tenant] | None:
    """The live key with this secret and its tenant, or None."""
    if len(secret) > MAX_SECRET_CHARS or not secret.isascii():
        return None
    async with db.connect() as conn:
        return await authenticate(conn, secret)


def require(role: Role):  # type: ignore[no-untyped-def]
    """A dependency that lets only keys of `role` or higher through (403 otherwise)."""

    async def check(caller: Annotated[Caller, Depends(current_caller)]) -> Caller:
        if ROLE_RANK[caller.key.role] < ROLE_RANK[role]:
            raise Forbidden(
                f"this needs a key with role {role.value} or higher; yours is "
                f"{caller.key.role.value}"
            )
        if caller.tenant.status is TenantStatus.SUSPENDED:
            raise Forbidden("this tenant is suspended: it can read but not change anything")
        return caller

    return check


ViewerDep = Annotated[Caller, Depends(current_caller)]
EditorDep = Annotated[Caller, Depends(require(Role.EDITOR))]
AdminDep = Annotated[Caller, Depends(require(Role.ADMIN))]


async def operator(
    request: Request, settings: SettingsDep, credentials: Annotated[Credentials, Depends(_operator)]
) -> None:
    """Let only the operator token through; with no token configured the operator API is closed.
    A wrong token counts against the client's failed authentications, like a wrong API key."""
    expected = settings.admin_token
    if not expected:
        raise Unauthorized("the operator API is closed: start the server with CADENZA_ADMIN_TOKEN")
    client, throttle = client_of(request), _throttle(request)
    throttle.check(client, OPERATOR_TOKEN)
    given = credentials.credentials if credentials else ""
    if not secrets.compare_digest(given.encode(), expected.encode()):
        if given:
            throttle.failed(client, OPERATOR_TOKEN, "")
        raise Unauthorized("missing or wrong operator token (CADENZA_ADMIN_TOKEN)")
    audit_hook.identify(OPERATOR, None, None)


OperatorDep = Annotated[None, Depends(operator)]
