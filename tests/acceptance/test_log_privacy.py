"""JSON log lines follow one occurrence by its ids (tenant, rule, action, occurrence, attempt,
run, event) and never carry what a script printed, returned, emitted or raised, nor a secret
(API key, webhook signing secret)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.operator import ADMIN_TOKEN, BUSY_QUOTAS, create_tenant_over_api, tenant_client
from support.polling import until
from support.processes import Server, running_server
from support.receivers import Receiver
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
    receiver = Receiver(failures=1_000_000)
    with serving(receiver.server):
        yield receiver.url


def _records(server: Server) -> list[dict]:
    return [json.loads(line) for line in server.lines if line.startswith("{")]


def test_run_and_delivery_lines_carry_ids_and_nothing_of_scripts_or_secrets(
    tmp_path: Path, refusing_receiver: str
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with running_server(url, "--no-demo", env=ENV) as server:
        created = create_tenant_over_api(server.base_url, BUSY_QUOTAS)
        key = created["api_key"]
        with tenant_client(server.base_url, key) as tenant:
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

            records = until(lambda: both(_records(server)) and _records(server), timeout_s=60)
    failed_run = next(r for r in records if "ended error" in r["message"])
    assert failed_run["tenant_id"] == created["id"] and failed_run["rule_id"].startswith("r_")
    assert failed_run["attempt"] == 1 and failed_run["action_id"] > 0
    assert failed_run["occurrence_id"].startswith(f"{failed_run['rule_id']}@")
    delivery = next(r for r in records if "webhook delivery of event" in r["message"])
    assert {"tenant_id", "rule_id", "action_id", "run_id", "event_id"} <= set(delivery)
    everything = "".join(server.lines)
    for private in (PRINTED, RAISED, EMITTED, secret, secret.removeprefix("whsec_"), key):
        assert private not in everything
