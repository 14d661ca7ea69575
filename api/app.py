"""The FastAPI application factory: routers, the error table, limits and the process's state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncEngine

from api import audit_hook, problems
from api.audit_hook import AuditScopes
from api.auth_throttle import AuthThrottle
from api.bodysize import BodySizeLimit
from api.capability_registry import capability_policy
from api.deps import refuse_nul
from api.metrics import RequestMetrics, RouteShape
from api.openapi import install_openapi
from api.ratelimit import Buckets, RateLimiter
from api.routes import (
    actions,
    admin,
    audit,
    calendars,
    capabilities,
    capability_grants,
    data,
    events,
    http_allowlist,
    keys,
    notifications,
    operations,
    preview,
    rule_bulk,
    rule_insight,
    rule_puts,
    rule_runs,
    rule_versions,
    rules,
    runs,
    secrets,
    tenant,
    test_run,
    webhooks,
)
from api.schemas.problems import problem_docs
from api.settings import Settings
from api.shared_buckets import SharedTokenBuckets
from api.static import mount_ui
from api.tracing import RequestTracing
from tenants.secret_box import SecretBox

if TYPE_CHECKING:
    from api.serving.engine_link import EngineLink
    from engine.service import EngineService

#: The routes a tenant's API key reaches, in the order they are matched.
TENANT_SCOPED = (
    preview,
    test_run,
    rule_bulk,
    rules,
    rule_puts,
    rule_runs,
    rule_insight,
    rule_versions,
    actions,
    runs,
    events,
    data,
    secrets,
    http_allowlist,
    capabilities,
    calendars,
    notifications,
    webhooks,
    tenant,
    keys,
    audit,
)
#: The routes the operator token reaches.
OPERATOR_SCOPED = (admin, capability_grants)
#: Every router, the unauthenticated operations (health, metrics) first.
ROUTERS = (operations, *TENANT_SCOPED, *OPERATOR_SCOPED)
#: Errors any tenant-scoped route may answer (each route's input errors come on top).
TENANT_ERRORS = problem_docs(401, 403, 404, 409, 412, 413, 422, 429, 503)
OPERATOR_ERRORS = problem_docs(401, 404, 409, 413, 422, 429, 503)


def create_app(
    settings: Settings,
    db: AsyncEngine,
    engine_service: EngineService | None,
    secret_box: SecretBox,
    engine_link: EngineLink | None = None,
    throttles_path: Path | None = None,
) -> FastAPI:
    """An app serving `db` (and `engine_service`'s rules), sealing tenants' secrets with
    `secret_box`; the caller owns every lifetime. With `engine_link`, the engine runs in
    another process: `/metrics` relays its exposition and `/readyz` asks whether it answers.
    With `throttles_path`, the request and failed-authentication buckets are kept in that file,
    shared with the other API processes that name it."""
    app = FastAPI(
        title="Cadenza",
        version="0.1.0",
        docs_url="/docs",
        openapi_url="/openapi.json",
        dependencies=[Depends(refuse_nul)],
        # Requests are traced and counted by our own middlewares (api.tracing, api.metrics):
        # FastAPI's native span would replace ours (named its own way), and asking per request
        # whether it is wanted costs CPU on every call (decision 141).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.db = db
    app.state.engine = engine_service
    app.state.secret_box = secret_box
    app.state.engine_link = engine_link
    app.state.capabilities = capability_policy(settings)
    app.state.rate_limiter = RateLimiter(_buckets(throttles_path, "requests"))
    app.state.auth_throttle = AuthThrottle(
        settings.auth_failures_per_minute, _buckets(throttles_path, "auth-failures")
    )
    problems.install(app)
    app.include_router(operations.router)
    for module in TENANT_SCOPED:
        app.include_router(module.router, responses=TENANT_ERRORS)
    for module in OPERATOR_SCOPED:
        app.include_router(module.router, responses=OPERATOR_ERRORS)
    # FastAPI keeps included routers nested; a flat list names routes in 405s and metrics.
    app.state.route_shapes = [
        RouteShape(route.path, route.path_regex, frozenset(route.methods or ()))
        for module in ROUTERS
        for route in module.router.routes
        if isinstance(route, APIRoute)
    ]
    app.add_middleware(BodySizeLimit, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(RequestMetrics, shapes=app.state.route_shapes)
    app.add_middleware(RequestTracing, shapes=app.state.route_shapes)
    app.add_middleware(AuditScopes)
    audit_hook.install(db)
    install_openapi(app)
    mount_ui(app)
    return app


def _buckets(throttles_path: Path | None, namespace: str) -> Buckets | None:
    """Buckets in the shared file, or None for this process's own."""
    return None if throttles_path is None else SharedTokenBuckets(throttles_path, namespace)
