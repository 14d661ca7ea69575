"""A stand-in for the outside APIs a script calls (and the host product): a real HTTP server on
a thread that records every request and answers by path."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

#: What `/carts` answers: open carts of a shop, one idle long enough to be reminded of.
CARTS = [
    {"id": "c1", "email": "ada@example.com", "idle_h": 30},
    {"id": "c2", "email": "bob@example.com", "idle_h": 2},
]


class StandIn:
    """`/echo` answers the request as JSON; `/big?bytes=N` N bytes; `/redirect?to=URL` a 302;
    `/rates` exchange rates; `/carts` open carts; `/hold` waits for `release`. Each request is
    recorded as (method, path, headers, body) when it arrives."""

    def __init__(self) -> None:
        self.received: list[tuple[str, str, dict[str, str], bytes]] = []
        #: `/hold` answers only once this is set (or after 30 s): a call in flight, to kill.
        self.release = threading.Event()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                stand_in.received.append((self.command, self.path, dict(self.headers), body))
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if parts.path == "/hold":
                    stand_in.release.wait(timeout=30)
                if parts.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", query["to"])
                    self.end_headers()
                    return
                self._send(self._content(parts.path, query, body))

            def _content(self, path: str, query: dict[str, str], body: bytes) -> bytes:
                if path == "/big":
                    return b"x" * int(query["bytes"])
                if path == "/carts":
                    return json.dumps(CARTS).encode()
                if path == "/rates":
                    return json.dumps({"base": "EUR", "rates": {"USD": 1.08, "CHF": 0.94}}).encode()
                echo = {"method": self.command, "path": self.path, "headers": dict(self.headers)}
                return json.dumps(echo | {"body": body.decode()}).encode()

            def _send(self, content: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        self.origin = f"http://127.0.0.1:{self.port}"
