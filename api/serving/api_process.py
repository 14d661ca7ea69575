"""An API process of `cadenza serve`: uvicorn on the socket the supervisor bound (shared by
every API process), the FastAPI app, and an `EngineService` that runs no node: its writes
commit to the database and wake the engine process through the wake channel.

Each API process has a small sandbox of its own, for what the API runs itself: checking a
script when a rule is saved, and test runs. It starts at the first of those (many API
processes never run one), not with the process.
"""

from __future__ import annotations

import os
import signal
import socket

import uvicorn
import uvloop
from prometheus_client import values as prometheus_values
from uvicorn.config import LOGGING_CONFIG

from api.app import create_app
from api.cli.common import configure_process
from api.cli.paths import sandbox_cache_dir
from api.engine_settings import engine_config
from api.secret_keys import open_secret_box
from api.serving.engine_link import EngineLink
from api.serving.layout import Layout, become_child
from api.serving.wake import WakeSender
from api.settings import Settings
from engine.service import EngineService
from sandbox import Sandbox, SandboxConfig
from tenants.connect import open_database

#: Sandbox workers of one API process: saves and test runs only, never scheduled runs.
API_SANDBOX_WORKERS = 2


def run_api(layout: Layout, sockets: list[socket.socket]) -> None:
    """The process's main (a forked child of the supervisor)."""
    become_child()
    os.nice(layout.settings.api_nice)  # the engine's timers come first (decision 144)
    _count_in_shared_files(layout)
    uvloop.run(_serve(layout, sockets))


def _count_in_shared_files(layout: Layout) -> None:
    """The request counters of every API process go to one directory, which the engine process
    reads (prometheus-client's multiprocess mode). The library chooses where values live when it
    is imported, which for a forked child was in the supervisor: choose again, before the first
    labelled child of a counter (every API counter has labels) is made."""
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(layout.api_metrics_dir)
    prometheus_values.ValueClass = prometheus_values.get_value_class()


async def _serve(layout: Layout, sockets: list[socket.socket]) -> None:
    settings = layout.settings
    configure_process(settings)
    db = await open_database(settings.database_url)
    sender = WakeSender(layout.wake_path)
    try:
        box = open_secret_box(settings)
        config = SandboxConfig(
            max_workers=API_SANDBOX_WORKERS, cache_dir=sandbox_cache_dir(), on_demand=True
        )
        async with Sandbox(config) as sandbox:
            service = EngineService(
                db, sandbox, engine_config(settings), secrets=box, on_change=sender.send
            )
            app = create_app(
                settings,
                db,
                service,
                box,
                engine_link=EngineLink(layout.link_port_path),
                throttles_path=layout.throttles_path,
            )
            server = uvicorn.Server(uvicorn_config(settings, app))
            # uvicorn raises the SIGTERM it caught again once it has shut down: let that one
            # pass, so the sandbox and the database close normally.
            signal.signal(signal.SIGTERM, lambda signum, frame: None)
            await server.serve(sockets=sockets)
    finally:
        sender.close()
        await db.dispose()


def uvicorn_config(settings: Settings, app: object) -> uvicorn.Config:
    """Uvicorn as every API process runs it."""
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        # As JSON, uvicorn's records go to the one handler instead of its own.
        log_config=LOGGING_CONFIG if settings.log_format == "text" else None,
        lifespan="on",
    )
