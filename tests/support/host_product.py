"""A stand-in for the embedding product's capability endpoints: a real HTTP server on a thread.

`POST /capabilities/<name>` records each call (headers and JSON body) as it arrives and answers
by name. `mail.send` performs its effect once per idempotency key, as a product should.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from support.stand_in import CARTS

SIGNING_KEY = "capability-signing-key-of-the-tests"
#: A registry entry per capability this stand-in answers; `url` is filled in per server.
SCHEMAS: dict[str, dict[str, Any]] = {
    "mail.send": {
        "type": "object",
        "properties": {
            "to": {"type": "array", "items": {"type": "string", "pattern": "^[^@]+@[^@]+$"}},
            "subject": {"type": "string", "maxLength": 200},
            "text": {"type": "string"},
        },
        "required": ["to", "subject", "text"],
        "additionalProperties": False,
    },
    "crm.open_carts": {
        "type": "object",
        "properties": {"idle_h": {"type": "integer", "minimum": 0}},
        "additionalProperties": False,
    },
    "test.huge": {},
    "test.broken": {},
    "test.hold": {},
}


class HostProduct:
    """Records every call as (headers, body bytes); `mail` holds each mail sent, by key."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.mail: dict[str, dict[str, Any]] = {}
        #: `test.hold` answers only once this is set (or after 30 s): a call in flight, to kill.
        self.release = threading.Event()
        product = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                product.received.append((dict(self.headers), body))
                name = self.path.rsplit("/", 1)[-1]
                status, answer = product.answer(name, self.headers["Idempotency-Key"], body)
                content = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"

    def answer(self, name: str, key: str, body: bytes) -> tuple[int, Any]:
        args = json.loads(body)["args"]
        if name == "mail.send":
            self.mail.setdefault(key, args)
            return 200, {"queued": True, "id": key}
        if name == "crm.open_carts":
            return 200, [c for c in CARTS if c["idle_h"] >= args.get("idle_h", 0)]
        if name == "test.huge":
            return 200, "x" * 100_000
        if name == "test.hold":
            self.release.wait(timeout=30)
            return 200, "released"
        return 503, {"error": "the mail relay is down"}

    def registry(self) -> dict[str, Any]:
        """The operator's registry document for these capabilities."""
        return {
            "capabilities": [
                {
                    "name": name,
                    "description": f"{name} of the stand-in product",
                    "schema": schema,
                    "url": f"{self.origin}/capabilities/{name}",
                    "max_answer_bytes": 4096,
                }
                for name, schema in SCHEMAS.items()
            ]
        }

    def calls(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [json.loads(body) for _, body in self.received]


def is_signed(headers: dict[str, str], body: bytes, key: str = SIGNING_KEY) -> bool:
    """Whether `X-Cadenza-Signature` is a valid HMAC-SHA256 of `<t>.<body>` under `key`."""
    parts = dict(p.split("=", 1) for p in headers["X-Cadenza-Signature"].split(","))
    signed = parts["t"].encode() + b"." + body
    expected = hmac.new(key.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(parts["v1"], expected)


#: A directory holding an installed distribution (`.dist-info`) with `cadenza.capabilities`
#: entry points: put it on `sys.path` (or PYTHONPATH) and `importlib.metadata` finds them.
PLUGIN_DIR = Path(__file__).with_name("capability_plugin")
#: Registry entries of the plugin's entry points.
IN_PROCESS = [
    {"name": "test.echo", "schema": {"type": "object"}, "entry_point": "test.echo"},
    {"name": "test.explode", "schema": {}, "entry_point": "test.explode"},
    {"name": "test.refuse", "schema": {}, "entry_point": "test.refuse"},
]


def lending_env(product: HostProduct, directory: Path, *extra: dict[str, Any]) -> dict[str, str]:
    """A server's settings whose operator lends `product`'s capabilities (and `extra` registry
    entries), signed with the tests' key: the registry file is written into `directory`."""
    registry = product.registry()
    registry["capabilities"] += list(extra)
    path = directory / "capabilities.json"
    path.write_text(json.dumps(registry))
    return {
        "CADENZA_CAPABILITIES_FILE": str(path),
        "CADENZA_CAPABILITY_SIGNING_KEY": SIGNING_KEY,
    }
