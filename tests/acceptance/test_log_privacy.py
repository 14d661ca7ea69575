"""JSON log lines follow one occurrence by its ids (tenant, rule, action, occurrence, attempt,
run, event) and never carry what a script printed, returned, emitted or raised, nor a secret
(API key, webhook signing secret)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from support.operator import ADMIN_TOKEN
from support.processes import Server, running_server
from support.threaded_server import serving

PRINTED, RAISED, EMITTED = "MARKER-printed-7f3a", "MARKER-raised-91c2", "MARKER-emitted-c0de"
FAILING = f"def main(ctx):\n    print('{PRINTED}')\n    raise ValueError('{RAISED}')\n"
EMITTING = f"def main(ctx):\n    ctx.emit('e', {{'x': '{EMITTED}'}})\n    return '{EMITTED}'\n"
ENV = {
    "CADENZA_ADMIN_TOKEN": ADMIN_TOKEN,
    "CADENZA_ALLOW_PRIVATE_WEBHOOKS": "true",
    "CADENZA_LOG_FORMAT": "json",
}


@pytest.fixture
def refusing_receiver() -> Iterator[str]:
    """A webhook receiver that answers 500 to everything."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_port}/hook"


def _records(server: Server) -> list[dict]:
    return [json.loads(line) for line in server.lines if line.startswith("{")]


def _wait_for(server: Server, found, timeout_s: float = 60.0) -> list[dict]:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not found(_records(server)):
        assert time.monotonic() < deadline, "".join(server.lines)[-3000:]
        time.sleep(0.2)
    return _records(server)


def test_run_and_delivery_lines_carry_ids_and_nothing_of_scripts_or_secrets(
    tmp_path: Path, refusing_receiver: str
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with running_server(url, "--no-demo", env=ENV) as server:
        created = httpx.post(
            f"{server.base_url}/v1/admin/tenants",
            json={"name": "logged", "quotas": {"min_interval_s": 1}},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        ).json()
        key = created["api_key"]
        tenant = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"})
        with tenant:
            secret = tenant.post("/v1/webhook/secret").json()["secret"]
            tenant.put("/v1/webhook", json={"url": refusing_receiver})
            for name, code in (("fails", FAILING), ("emits", EMITTING)):
                body = {"name": name, "schedule": "every 1s", "code": code, "max_attempts": 1}
                assert tenant.post("/v1/rules", json=body).status_code == 201

            def both(records: list[dict]) -> bool:
                messages = [r["message"] for r in records]
                return any("ended error" in m for m in messages) and any(
                    "webhook delivery of event" in m for m in messages
                )

            records = _wait_for(server, both)
    failed_run = next(r for r in records if "ended error" in r["message"])
    assert failed_run["tenant_id"] == created["id"] and failed_run["rule_id"].startswith("r_")
    assert failed_run["attempt"] == 1 and failed_run["action_id"] > 0
    assert failed_run["occurrence_id"].startswith(f"{failed_run['rule_id']}@")
    delivery = next(r for r in records if "webhook delivery of event" in r["message"])
    assert {"tenant_id", "rule_id", "action_id", "run_id", "event_id"} <= set(delivery)
    everything = "".join(server.lines)
    for private in (PRINTED, RAISED, EMITTED, secret, secret.removeprefix("whsec_"), key):
        assert private not in everything
