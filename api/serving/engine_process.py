"""The engine process of `cadenza serve`: the node's loops (and their sandbox workers), the
wake channel's listening end and the loopback listener, in a process of its own.

It reports `EngineStarted` to the supervisor once its node runs; it stops like `cadenza worker`
(SIGTERM: give back what has not started, drain for up to `stop_grace_s`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from multiprocessing.connection import Connection

import uvloop

from api.cli.common import configure_process
from api.cli.node import running_node
from api.demo import add_demo_rule
from api.engine_settings import engine_config
from api.secret_keys import open_secret_box
from api.serving import engine_link, wake
from api.serving.layout import EngineStarted, Layout, become_child
from api.settings import Settings
from tenants.connect import open_database


def run_engine(layout: Layout, report: Connection) -> None:
    """The process's main (a forked child of the supervisor)."""
    become_child()
    uvloop.run(_engine(layout, report))


async def _engine(layout: Layout, report: Connection) -> None:
    settings = layout.settings
    configure_process(settings)
    db = await open_database(settings.database_url, eager_writer=True)
    try:
        box = open_secret_box(settings)
        registry = engine_link.joined_registry(layout.api_metrics_dir)
        with (
            engine_link.listener(registry, "127.0.0.1", 0) as link_port,
            _public_metrics(settings, registry) as public_port,
        ):
            config = engine_config(settings)
            async with (
                running_node(settings, db, box, config) as (service, signals),
                wake.listening(layout.wake_path, service.wake),
            ):
                if layout.demo is not None:
                    await add_demo_rule(service, layout.demo)
                engine_link.publish_port(layout.link_port_path, link_port)
                report.send(EngineStarted(public_port))
                await signals.stopped()
    finally:
        await db.dispose()


@contextlib.contextmanager
def _public_metrics(
    settings: Settings, registry: engine_link.CollectorRegistry
) -> Iterator[int | None]:
    """The `--metrics-address` listener, if asked for (no token: keep it off public networks)."""
    if settings.metrics_address is None:
        yield None
        return
    host, _, port = settings.metrics_address.rpartition(":")
    with engine_link.listener(registry, host, int(port)) as bound:
        yield bound
