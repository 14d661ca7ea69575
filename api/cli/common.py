"""What every command shares: the --db option, settings, and turning errors into exit codes."""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import uvloop
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncEngine

from api.cli.exits import fail
from api.secret_keys import open_secret_box, seal_legacy_secrets
from api.settings import Settings, load_settings
from engine.errors import NodeNameInUse
from engine.store import schema
from tenants.connect import open_database
from tenants.db import is_sqlite, normalise_url, sqlite_path
from tenants.errors import CadenzaDataError
from tenants.secret_box import SecretBox

if TYPE_CHECKING:
    from engine.service import EngineService

T = TypeVar("T")

db_option = click.option(
    "--db",
    "database_url",
    metavar="URL",
    help="Database URL (default: $CADENZA_DATABASE_URL or sqlite+aiosqlite:///./cadenza.db).",
)

log_format_option = click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    help="Log lines as text or as one JSON object each (default: $CADENZA_LOG_FORMAT or text).",
)


def settings_from(**overrides: Any) -> Settings:
    """The process's settings; a bad one (or a bad capability registry) ends it with a message."""
    try:
        settings = load_settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        fail(f"invalid setting {where}: {first['msg']} (see docs/configuration.md)")
    _check_capabilities(settings)
    return settings


def _check_capabilities(settings: Settings) -> None:
    """Load the capability registry and its entry points, or end with the registry's mistake.
    Imported here, not at the top: `--help` and the light commands need no JSON Schema."""
    from api.capability_registry import capability_policy
    from engine.capabilities.specs import CapabilityConfigError

    try:
        policy = capability_policy(settings)
        if policy.specs:  # the desk loads their entry points (and the HTTP client)
            from engine.capabilities.desk import CapabilityDesk

            CapabilityDesk(policy)
    except CapabilityConfigError as exc:
        fail(f"{exc} (see docs/capabilities.md)")


def freeze_startup_heap() -> None:
    """Take what start-up built (modules, SQLAlchemy's tables and cached statements, the
    sandbox) out of the garbage collector's reach, for a long-running process.

    A full collection walks every tracked object, and after start-up there are enough of them
    that the event loop stands still long enough for runs to start late. Frozen, they are never
    walked again (the effect on lateness is in docs/performance.md)."""
    gc.collect()
    gc.freeze()


def configure_logging(settings: Settings) -> None:
    """Every record to stderr in the configured format: Cadenza's own at `log_level`, other
    libraries' from warning up (they log each HTTP request and connection at info)."""
    from engine.ops.logs import JsonFormatter, TextFormatter  # the engine's records, not needed
    # by the short commands

    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if settings.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("cadenza").setLevel(settings.log_level.upper())


def run_async(fn: Callable[..., Awaitable[T]]) -> Callable[..., T]:
    """Run an async command body; data-layer errors become a one-line message and exit 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return uvloop.run(fn(*args, **kwargs))  # type: ignore[arg-type]
        except CadenzaDataError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            sys.exit(130)

    return wrapper


def _sqlite_files(url: str) -> list[Path]:
    parsed = normalise_url(url)
    if not is_sqlite(parsed):
        return []
    path = sqlite_path(parsed)
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


async def open_migrated(url: str) -> AsyncEngine:
    """Open the database and bring its schema to the newest revision.

    A SQLite file this call created is removed again if anything fails, so a bad start never
    leaves half a database behind.
    """
    created = [p for p in _sqlite_files(url) if not p.exists()]
    engine = None
    try:
        engine = await open_database(url)
        await schema.upgrade(engine)
    except BaseException:
        if engine is not None:
            await engine.dispose()
        for path in created:
            if path.exists():
                path.unlink()
        raise
    return engine


async def start_engine(service: EngineService) -> None:
    """Start the engine node; a node name held by another live node is a usage error."""
    try:
        await service.start()
    except NodeNameInUse as exc:
        fail(str(exc))


def configure_process(settings: Settings) -> None:
    """Logs, metrics and traces of a long-running process, as the settings ask (imported
    here: the short commands need neither metrics nor traces)."""
    from api import tracing
    from engine.ops import metrics

    configure_logging(settings)
    metrics.configure(tenant_labels=settings.metrics_tenant_labels)
    try:
        tracing.configure(settings.tracing)
    except tracing.TracingUnavailable as exc:
        fail(str(exc) or (type(exc).__doc__ or "").strip())


async def open_node_database(settings: Settings) -> tuple[AsyncEngine, SecretBox]:
    """What `serve` and `worker` start with: logs, metrics and traces set up, the database
    migrated, the operator key at hand and any plain-text secret left by an upgrade sealed."""
    configure_process(settings)
    db = await open_migrated(settings.database_url)
    try:
        box = open_secret_box(settings)
        await seal_legacy_secrets(db, box)
    except BaseException:
        await db.dispose()
        raise
    return db, box


@contextlib.asynccontextmanager
async def migrated_database(database_url: str | None) -> AsyncIterator[AsyncEngine]:
    """The configured database, migrated, disposed of on exit."""
    engine = await open_migrated(settings_from(database_url=database_url).database_url)
    try:
        yield engine
    finally:
        await engine.dispose()
