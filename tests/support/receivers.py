"""A real webhook receiver: an HTTP server on a thread that records every delivery."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """Fails (500) the first `failures` requests, then accepts (204); records each one as
    (headers, body, status) in `received`. Serve it with `support.threaded_server.serving`."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.received: list[tuple[dict[str, str], bytes, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = 500 if len(receiver.received) < receiver.failures else 204
                receiver.received.append((dict(self.headers), body, status))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def by_event_id(self) -> dict[int, tuple[str, bytes]]:
        """The accepted deliveries by event id: (signature header, body)."""
        return {
            int(headers["X-Cadenza-Event-Id"]): (headers["X-Cadenza-Signature"], body)
            for headers, body, status in self.received
            if status == 204
        }
