"""A real HTTP server for a test's block, on a thread of its own (webhook receivers)."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(server: socketserver.BaseServer) -> Iterator[None]:
    """Serve `server` on a daemon thread for the block; shut it down and close it after."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
