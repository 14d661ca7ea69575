"""Capabilities through a real server whose operator registered the stand-in product's and the
plugin's (an installed distribution on the server's path): the operator grants and revokes,
a tenant lists what it may call with the schemas, and its scripts call them, hostile or not."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from support.api_servers import KINDS, UNTHROTTLED, new_database_url
from support.host_product import IN_PROCESS, PLUGIN_DIR, SCHEMAS, HostProduct, lending_env
from support.operator import ADMIN_TOKEN
from support.processes import Server, running_server
from support.threaded_server import serving

MAIL = {"to": ["ada@example.com"], "subject": "Weekly report", "text": "42 orders"}


@pytest.fixture(scope="module")
def host_product() -> Iterator[HostProduct]:
    product = HostProduct()
    with serving(product.server):
        yield product
        product.release.set()


@pytest.fixture(scope="module", params=KINDS)
def server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    host_product: HostProduct,
) -> Iterator[Server]:
    """A server of its own: its registry names the stand-in product's endpoints."""
    env = {
        "CADENZA_ADMIN_TOKEN": ADMIN_TOKEN,
        **lending_env(host_product, tmp_path_factory.mktemp("registry"), *IN_PROCESS),
        "CADENZA_CAPABILITY_MAX_CALLS_PER_RUN": "5",
        "PYTHONPATH": str(PLUGIN_DIR),
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


def _grants(tenant_id: str) -> str:
    return f"/v1/admin/tenants/{tenant_id}/capabilities"


def test_the_operator_grants_and_revokes_and_the_tenant_sees_its_grants_with_schemas(
    new_tenant, operator: httpx.Client, problem
) -> None:
    t, other = new_tenant(), new_tenant()
    assert t.viewer.get("/v1/capabilities").json() == []
    granted = operator.put(f"{_grants(t.id)}/mail.send")
    assert granted.status_code == 200, granted.text
    assert granted.json()["name"] == "mail.send" and granted.json()["registered"] is True
    again = operator.put(f"{_grants(t.id)}/mail.send").json()
    assert again["granted_at"] == granted.json()["granted_at"]
    listed = t.viewer.get("/v1/capabilities").json()
    assert [c["name"] for c in listed] == ["mail.send"]
    assert listed[0]["args_schema"] == SCHEMAS["mail.send"]
    assert listed[0]["max_answer_bytes"] == 4096
    assert other.viewer.get("/v1/capabilities").json() == []
    assert [g["name"] for g in operator.get(_grants(t.id)).json()] == ["mail.send"]
    assert operator.delete(f"{_grants(t.id)}/mail.send").status_code == 204
    assert t.viewer.get("/v1/capabilities").json() == []
    assert operator.get(_grants(t.id)).json() == []


def test_bad_grants_are_clear_errors_and_change_nothing(
    new_tenant, operator: httpx.Client, problem
) -> None:
    t = new_tenant()
    unknown = problem(operator.put(f"{_grants(t.id)}/no.such"), 404)
    assert "mail.send" in unknown["detail"] and "no.such" in unknown["detail"]
    problem(operator.put(f"{_grants('t_nosuchtenant')}/mail.send"), 404)
    problem(operator.get(_grants("t_nosuchtenant")), 404)
    problem(operator.delete(f"{_grants(t.id)}/mail.send"), 404)
    problem(operator.put(f"{_grants(t.id)}/{'x' * 131}"), 422)
    for client in (t.admin, t.viewer):  # a tenant's own key never grants
        assert client.put(f"{_grants(t.id)}/mail.send").status_code in {401, 403}
    assert operator.get(_grants(t.id)).json() == []


def _test_run(client: httpx.Client, code: str) -> dict:
    """Run `code` with a generous time limit: what is tested is what the calls answer, and a
    loaded machine must not run the script out of time for them."""
    done = client.post("/v1/rules/test-run", json={"code": code, "timeout_ms": 30_000})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["status"] == "ok", body
    return body


def test_a_script_calls_what_was_granted_and_nothing_else(
    new_tenant, operator: httpx.Client, host_product: HostProduct
) -> None:
    t = new_tenant()
    for name in ("mail.send", "test.echo"):
        assert operator.put(f"{_grants(t.id)}/{name}").status_code == 200
    before = len(host_product.received)
    code = (
        "def main(ctx):\n    out = []\n"
        f"    for name, args in [('mail.send', {MAIL!r}), ('test.echo', {{'n': 1}}),"
        " ('crm.open_carts', {}), ('mail.send', {'to': 'x', 'subject': 's', 'text': 't'})]:\n"
        "        try:\n            out.append(ctx.call(name, args))\n"
        "        except HostError as exc:\n            out.append(str(exc))\n"
        "    return out\n"
    )
    sent, echo, ungranted, off_schema = _test_run(t.editor, code)["result"]
    assert isinstance(sent, dict) and isinstance(echo, dict), (sent, echo)
    assert sent["queued"] is True and echo["args"] == {"n": 1} and echo["tenant_id"] == t.id
    assert "'crm.open_carts' is not granted to this tenant" in ungranted
    assert "do not match its schema at $.to" in off_schema
    arrived = [json.loads(body) for _, body in host_product.received[before:]]
    assert [(c["capability"], c["tenant_id"], c["args"]) for c in arrived] == [
        ("mail.send", t.id, MAIL)
    ]


def test_a_flood_of_calls_stops_at_the_run_quota(
    new_tenant, operator: httpx.Client, host_product: HostProduct
) -> None:
    t = new_tenant()
    assert operator.put(f"{_grants(t.id)}/test.echo").status_code == 200
    code = (
        "def main(ctx):\n    done = 0\n"
        "    for i in range(1000):\n"
        "        try:\n            ctx.call('test.echo', {'i': i})\n            done += 1\n"
        "        except HostError as exc:\n            return [done, str(exc)]\n"
    )
    done, refusal = _test_run(t.editor, code)["result"]
    assert done == 5 and "more than 5 capability calls in one run" in refusal
