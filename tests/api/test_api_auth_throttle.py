"""A client that guesses keys is throttled per address (429 with Retry-After after the
configured number of failures a minute), counted in metrics, and logged with a key's public
prefix only; other clients, and their valid keys, are not affected. The server runs two API
processes and every request comes on a new connection, so the guesses reach both: the limit
holds for the whole `serve`, not per process."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from support.api_servers import KINDS, new_database_url
from support.operator import ADMIN_TOKEN
from support.polling import until
from support.processes import Server, running_server

#: Low enough that a bucket refills one token only every 15 s: the checks after the last guess
#: must not race a refill on a loaded machine (the default, 20, refills every 3 s).
FAILURES_PER_MINUTE = 4


@pytest.fixture(scope="module", params=KINDS)
def guarded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server with its own limit of failed authentications, for this module alone."""
    url = new_database_url(request.param, request, tmp_path_factory)
    env = {
        "CADENZA_ADMIN_TOKEN": ADMIN_TOKEN,
        "CADENZA_API_WORKERS": "2",
        "CADENZA_AUTH_FAILURES_PER_MINUTE": str(FAILURES_PER_MINUTE),
    }
    with running_server(url, env=env) as running:
        yield running


@pytest.fixture(scope="module")
def operator(guarded: Server) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with httpx.Client(base_url=guarded.base_url, headers=headers, timeout=30) as client:
        yield client


@pytest.fixture
def viewer_key(operator: httpx.Client) -> str:
    """A valid key of a fresh tenant (its admin key)."""
    created = operator.post("/v1/admin/tenants", json={"name": f"t-{secrets.token_hex(6)}"})
    assert created.status_code == 201, created.text
    return str(created.json()["api_key"])


def _from(server: Server, address: str, secret: str | None = None) -> httpx.Client:
    """A client whose connections come from `address` (anything in 127.0.0.0/8 is local), a
    new one per request (so that requests spread over the API processes)."""
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    no_reuse = httpx.Limits(max_keepalive_connections=0)
    transport = httpx.HTTPTransport(local_address=address, limits=no_reuse)
    return httpx.Client(base_url=server.base_url, headers=headers, transport=transport, timeout=30)


def _counter(operator: httpx.Client, name: str, credential: str) -> float:
    for family in text_string_to_metric_families(operator.get("/metrics").text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("credential") == credential:
                return sample.value
    return 0.0


@pytest.fixture
def guessed_keys() -> list[str]:
    return [f"cdz_{secrets.token_urlsafe(24)}" for _ in range(FAILURES_PER_MINUTE)]


def test_key_guessing_client_is_throttled_others_are_not(
    guarded: Server, operator: httpx.Client, viewer_key: str, problem, guessed_keys: list[str]
) -> None:
    failures_before = _counter(operator, "cadenza_auth_failures_total", "api_key")
    throttled_before = _counter(operator, "cadenza_auth_throttled_total", "api_key")
    with _from(guarded, "127.0.0.2") as guesser, _from(guarded, "127.0.0.3") as neighbour:
        for guess in guessed_keys:
            answer = guesser.get("/v1/tenant", headers={"Authorization": f"Bearer {guess}"})
            problem(answer, 401, "unauthorized")
        refused = guesser.get("/v1/tenant", headers={"Authorization": f"Bearer {guessed_keys[0]}"})
        body = problem(refused, 429, "auth-throttled")
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "failed authentications" in body["detail"]
        # Throttled means every credential: a right guess must not be confirmed meanwhile.
        valid = {"Authorization": f"Bearer {viewer_key}"}
        problem(guesser.get("/v1/tenant", headers=valid), 429, "auth-throttled")
        operator_token = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        problem(guesser.get("/v1/admin/tenants", headers=operator_token), 429)
        # Another address is not affected, with its valid key or a wrong one.
        assert neighbour.get("/v1/tenant", headers=valid).status_code == 200
        wrong = {"Authorization": f"Bearer cdz_{secrets.token_urlsafe(24)}"}
        problem(neighbour.get("/v1/tenant", headers=wrong), 401)
    with _from(guarded, "127.0.0.1", viewer_key) as local:
        assert local.get("/v1/tenant").status_code == 200  # nor is 127.0.0.1
    failed = _counter(operator, "cadenza_auth_failures_total", "api_key") - failures_before
    throttled = _counter(operator, "cadenza_auth_throttled_total", "api_key") - throttled_before
    assert failed == FAILURES_PER_MINUTE + 1  # the guesses and the neighbour's wrong key
    assert throttled == 2


def test_failed_keys_are_logged_by_public_prefix_only(
    guarded: Server, guessed_keys: list[str]
) -> None:
    with _from(guarded, "127.0.0.4") as guesser:
        guesser.get("/v1/rules", headers={"Authorization": f"Bearer {guessed_keys[0]}"})
        guesser.get("/v1/rules", headers={"Authorization": "Bearer not-a-key-at-all-but-long"})
    prefix = guessed_keys[0][:12]
    expected = [
        f"failed authentication from 127.0.0.4 with api key {prefix}",
        "failed authentication from 127.0.0.4 with api key (not an API key)",
    ]

    # The server's output reaches the test through a pipe: wait for the lines, not the answer.
    def logged() -> str:
        text = "".join(guarded.lines)
        return text if all(line in text for line in expected) else ""

    log = until(logged)
    assert guessed_keys[0] not in log and guessed_keys[0][12:] not in log
    assert "not-a-key-at-all" not in log


def test_wrong_operator_tokens_are_throttled_too(guarded: Server, problem) -> None:
    with _from(guarded, "127.0.0.5", secret="wrong-operator-token") as guesser:
        for _ in range(FAILURES_PER_MINUTE):
            problem(guesser.get("/v1/admin/tenants"), 401)
        problem(guesser.get("/v1/admin/tenants"), 429, "auth-throttled")
        problem(guesser.get("/metrics"), 429, "auth-throttled")
    log = "".join(guarded.lines)
    assert "failed authentication from 127.0.0.5 with operator token" in log
    assert "wrong-operator-token" not in log
