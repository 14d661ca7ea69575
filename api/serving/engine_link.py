"""The engine process's loopback listener, and the API processes' side of it.

The engine process serves one Prometheus exposition on 127.0.0.1: its own registry (the
engine's counters and gauges, the sandbox's workers) joined with the request counters every API
process writes to a shared directory (prometheus-client's multiprocess mode). The API's
`/metrics` relays it, the `--metrics-address` listener serves the same, and `/readyz` asks it
whether the engine still answers. The counters live where they are counted (no engine counter
is ever copied), and API processes share theirs, so a scrape on any of them sees the same sums.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import httpx
from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from api.cli.common import fail
from api.errors import EngineUnavailable

#: Families the API processes count (`api.metrics`); every other family is the engine's.
API_FAMILY_PREFIXES = ("cadenza_http_", "cadenza_auth_")
#: How long `/readyz` waits for the engine's answer before it calls the engine absent.
LINK_TIMEOUT_S = 2.0
#: How long a scrape waits for the whole exposition, which grows with the series the engine
#: holds and is built while the engine works: Prometheus's default scrape timeout.
SCRAPE_TIMEOUT_S = 10.0
#: The one cheap family `/readyz` asks for.
PROBE_FAMILY = "cadenza_runs_in_flight"


class _Filtered(Collector):
    """The families of `source` whose names pass `keep`."""

    def __init__(self, source: Collector, keep: Callable[[str], bool]) -> None:
        self._source = source
        self._keep = keep

    def collect(self) -> Iterable:  # type: ignore[type-arg]
        return [family for family in self._source.collect() if self._keep(family.name)]


def _is_api_family(name: str) -> bool:
    return name.startswith(API_FAMILY_PREFIXES)


def joined_registry(api_metrics_dir: Path) -> CollectorRegistry:
    """This engine process's families with the API processes' request counters."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Filtered(REGISTRY, lambda name: not _is_api_family(name)))
    api_families = MultiProcessCollector(None, path=str(api_metrics_dir))
    registry.register(_Filtered(api_families, _is_api_family))
    return registry


@contextlib.contextmanager
def listener(registry: CollectorRegistry, host: str, port: int) -> Iterator[int]:
    """Serve `registry` on host:port (a thread of its own, so a scrape is answered even while
    the event loop is busy); yield the port bound. A taken address is a usage error."""
    try:
        httpd, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        fail(f"cannot serve metrics on {host}:{port}: {exc.strerror}; choose another address")
    try:
        yield int(httpd.server_port)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def publish_port(path: Path, port: int) -> None:
    """Tell the API processes where the listener is, once the node runs (written whole)."""
    partial = path.with_suffix(".partial")
    partial.write_text(str(port))
    partial.replace(path)


class EngineLink:
    """An API process's way to the engine process's loopback listener, whose port the engine
    publishes in `port_path` once its node runs (API processes start beside it, not after)."""

    def __init__(self, port_path: Path) -> None:
        self._port_path = port_path

    async def exposition(self) -> bytes:
        """The whole exposition; EngineUnavailable if the engine does not answer."""
        return await self._get({}, SCRAPE_TIMEOUT_S)

    async def problem(self) -> str | None:
        """None while the engine answers; else why it is not ready."""
        try:
            await self._get({"name[]": PROBE_FAMILY}, LINK_TIMEOUT_S)
        except EngineUnavailable as exc:
            return str(exc)
        return None

    async def _get(self, params: dict[str, str], timeout_s: float) -> bytes:
        try:
            port = int(self._port_path.read_text())
        except FileNotFoundError:
            raise EngineUnavailable("the engine process is starting") from None
        try:
            async with httpx.AsyncClient(timeout=timeout_s) as client:
                answer = await client.get(f"http://127.0.0.1:{port}/metrics", params=params)
                answer.raise_for_status()
        except httpx.HTTPError as exc:
            raise EngineUnavailable(
                f"the engine process does not answer ({type(exc).__name__}); "
                "see the `cadenza serve` log"
            ) from exc
        return answer.content
