"""The four worked examples of docs/scripts.md (weekly report by email through a capability,
abandoned-cart reminder, exchange rates into kv, Slack ping), read from the page as printed and
entered as a new tenant would: allow-list, secrets and grant set through the API, the script
saved as a rule with the page's schedule, then triggered on a real server. Their effects are
checked where they land: the product's mail capability, kv, the Slack stand-in, the planned
follow-up, the run's recorded calls."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.api_servers import KINDS, UNTHROTTLED, new_database_url
from support.host_product import HostProduct, lending_env
from support.operator import ADMIN_TOKEN
from support.polling import until
from support.processes import Server, running_server
from support.stand_in import StandIn
from support.threaded_server import serving

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scripts.md").read_text()
#: Each example's heading -> (the schedule its prose names, else None; its code).
SECTIONS = re.findall(
    r"### (?:Worked|Capability) example: ([^\n(]+?)(?: \(`[^`]+`\))?\n\n(.*?)```python\n(.*?)```",
    DOC,
    re.S,
)
EXAMPLES = {name: (re.search(r"`(FREQ=[^`]+)`", prose), code) for name, prose, code in SECTIONS}
TOKEN = "xoxb-000-stand-in-token"
MANAGERS = ["ada@example.com", "bob@example.com"]


@pytest.fixture(scope="module")
def host_product() -> Iterator[HostProduct]:
    product = HostProduct()
    with serving(product.server):
        yield product
        product.release.set()


@pytest.fixture(scope="module")
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    with serving(server.server):
        yield server


@pytest.fixture(scope="module", params=KINDS)
def server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    host_product: HostProduct,
) -> Iterator[Server]:
    """A server whose operator lends the stand-in product's `mail.send` and lets scripts reach
    loopback over plain HTTP (the stand-ins'): the tests' policy, not a default."""
    env = {
        "CADENZA_ADMIN_TOKEN": ADMIN_TOKEN,
        **lending_env(host_product, tmp_path_factory.mktemp("registry")),
        "CADENZA_HTTP_SCHEMES": "https,http",
        "CADENZA_HTTP_ALLOW_PRIVATE": "true",
        **UNTHROTTLED,
    }
    url = new_database_url(request.param, request, tmp_path_factory)
    with running_server(url, env=env) as running:
        yield running


@pytest.fixture(scope="module")
def operator(server: Server) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        yield client


def test_the_page_has_the_four_seed_examples() -> None:
    assert set(EXAMPLES) == {
        "weekly report by email",
        "abandoned-cart reminder",
        "exchange rates into kv",
        "Slack ping",
    }


def _prepare(t: Any, operator: httpx.Client, stand_in: StandIn) -> None:
    """What the page asks for first: the origins, the tokens, the grant, last week's orders."""
    allowed = t.admin.put("/v1/http-allowlist", json={"entries": [stand_in.origin]})
    assert allowed.status_code == 200, allowed.text
    for name in ("slack_bot", "shop_token"):
        saved = t.admin.put(f"/v1/secrets/{name}", json={"value": TOKEN})
        assert saved.status_code == 200, saved.text
    granted = operator.put(f"/v1/admin/tenants/{t.id}/capabilities/mail.send")
    assert granted.status_code == 200, granted.text
    for key, orders in {"sales/mon": 3, "sales/tue": 4}.items():
        assert t.admin.put(f"/v1/kv/{key}", json={"value": orders}).status_code == 200


def _params(name: str, origin: str) -> dict[str, Any]:
    """The page's params, its outside URLs pointed at the stand-in."""
    return {
        "weekly report by email": {"managers": MANAGERS},
        "abandoned-cart reminder": {"carts_url": f"{origin}/carts"},
        "exchange rates into kv": {"rates_url": f"{origin}/rates"},
        "Slack ping": {"url": f"{origin}/api/chat.postMessage", "channel": "#deploys"},
    }[name]


@pytest.fixture
def example_run(
    new_tenant: Any, operator: httpx.Client, stand_in: StandIn
) -> Callable[[str], tuple[Any, dict[str, Any]]]:
    """Run an example as a new tenant prepared as the page asks; the tenant and its run."""

    def run(name: str) -> tuple[Any, dict[str, Any]]:
        t = new_tenant()
        _prepare(t, operator, stand_in)
        return t, _run_once(t, name, stand_in.origin)

    return run


def _run_once(t: Any, name: str, origin: str) -> dict[str, Any]:
    """Save the example as a rule, trigger it, wait for its action to end; its run."""
    schedule, code = EXAMPLES[name]
    rule = t.editor.post(
        "/v1/rules",
        json={
            "name": name,
            "schedule": schedule.group(1) if schedule else "FREQ=HOURLY",
            "timezone": "Europe/Berlin",
            "code": code,
            "params": _params(name, origin),
            "max_attempts": 1,
        },
    )
    assert rule.status_code == 201, rule.text
    action = t.editor.post(f"/v1/rules/{rule.json()['id']}/trigger")
    assert action.status_code == 201, action.text
    ended = until(lambda: _ended(t, action.json()["id"]), timeout_s=60)
    assert ended["status"] == "succeeded", ended
    runs = t.viewer.get("/v1/runs", params={"rule_id": rule.json()["id"]}).json()["items"]
    run: dict[str, Any] = t.viewer.get(f"/v1/runs/{runs[0]['id']}").json()
    return run | {"rule_id": rule.json()["id"], "scheduled_at": action.json()["scheduled_at"]}


def _ended(t: Any, action_id: int) -> dict[str, Any] | None:
    found: dict[str, Any] = t.viewer.get(f"/v1/actions/{action_id}").json()
    return found if found["status"] not in ("pending", "running") else None


def _kv(t: Any, key: str) -> Any:
    return t.viewer.get(f"/v1/kv/{key}").json()["value"]


def test_weekly_report_mails_the_managers_through_the_capability(
    example_run, host_product: HostProduct
) -> None:
    t, run = example_run("weekly report by email")
    assert run["result"] == {"orders": 7, "mailed": True}
    (mail,) = [c for c in host_product.calls() if c["tenant_id"] == t.id]
    assert mail["capability"] == "mail.send" and mail["args"]["to"] == MANAGERS
    assert mail["args"]["text"] == "Orders this week: 7"
    assert _kv(t, "mailed/" + run["scheduled_at"][:10]) == mail["occurrence_id"] + "/call/0"
    assert [(c["kind"], c["host"], c["status"]) for c in run["calls"]] == [
        ("capability", "mail.send", 200)
    ]
    assert "ada@example.com" not in json.dumps(run["calls"])


def test_abandoned_cart_reminder_emits_once_and_plans_its_follow_up(
    example_run,
) -> None:
    t, run = example_run("abandoned-cart reminder")
    assert run["result"] == {"reminded": 1}
    events = t.viewer.get("/v1/events").json()["items"]
    reminders = [e["payload"] for e in events if e["type"] == "cart.reminder"]
    assert reminders == [{"cart": "c1", "to": "ada@example.com"}]
    assert _instant(_kv(t, "reminded/first/c1")) == _instant(run["scheduled_at"])
    planned = t.viewer.get("/v1/actions", params={"rule_id": run["rule_id"]}).json()["items"]
    (follow_up,) = [a for a in planned if a["key"] == "remind-again/c1"]
    assert follow_up["status"] == "pending"
    assert _instant(follow_up["scheduled_at"]) == _instant(run["scheduled_at"]) + timedelta(days=1)
    assert run["calls"][0]["kind"] == "http" and TOKEN not in json.dumps(run)


def test_exchange_rates_are_stored_in_kv(example_run) -> None:
    t, run = example_run("exchange rates into kv")
    assert run["result"] == {"usd": 1.08, "currencies": 2}
    assert _kv(t, "rates/" + run["scheduled_at"][:10]) == {"USD": 1.08, "CHF": 0.94}


def test_slack_ping_reaches_the_stand_in_with_the_token_the_script_never_held(
    example_run, stand_in: StandIn
) -> None:
    before = len(stand_in.received)
    _, run = example_run("Slack ping")
    assert run["result"] == {"sent": True}
    (method, path, headers, body) = stand_in.received[before]
    assert (method, path) == ("POST", "/api/chat.postMessage")
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    message = json.loads(body)
    assert message["channel"] == "#deploys"
    assert message["text"].startswith("Deploy window opens in 15 minutes (")
    assert TOKEN not in json.dumps(run)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
