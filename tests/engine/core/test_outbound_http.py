"""`ctx.http.request` against a real local server: allowed origins only, no private address
however it is spelt, redirects re-checked, responses capped, secrets put in headers without the
script seeing them, and a stable idempotency key per occurrence and call index."""

from __future__ import annotations

import pytest
from http_trials import LOOPBACK_ALLOWED, allow, trial
from retried_occurrence import run_twice
from support.stand_in import StandIn

from engine.clock import ManualClock
from engine.config import EngineConfig, HttpPolicy
from engine.service import EngineService
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants import tenant_secrets

PUBLIC_ONLY = HttpPolicy(schemes=frozenset({"http"}), allow_private=False)
VALUE = "sk_test_51Hh2Xz9"


async def _run(*args: object, **kwargs: object) -> object:
    return (await trial(*args, **kwargs)).outcome.result  # type: ignore[arg-type]


def _attempts(urls: list[str], headers: str = "None") -> str:
    """A script that tries each URL and returns, per URL, the status or the refusal."""
    return (
        "def main(ctx):\n    out = []\n"
        f"    for url in {urls!r}:\n"
        "        try:\n"
        f"            out.append(ctx.http.request('GET', url, {headers})['status'])\n"
        "        except HostError as exc:\n"
        "            out.append(str(exc))\n"
        "    return out\n"
    )


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the subject is the sandbox's
async def test_a_call_has_the_run_s_time_however_long_the_wait_for_a_worker(
    db, secret_box, clock, tenant_id, stand_in: StandIn
) -> None:
    """A sandbox that starts its zygote on demand, as the API's does for test runs, and has
    no cache of the compiled MicroPython interpreter, compiles it before it hands the first
    job to a worker: seconds, longer than this run's limit. The limit counts from the
    worker's start, and so does the time left for the script's calls (CI once refused a test
    run's call as out of time after 39 ms: the API's zygote had taken the run's 5 s to start)."""
    await allow(db, tenant_id, stand_in.origin)
    runtimes = (RuntimeName.PYTHON, RuntimeName.MICROPYTHON)
    config = SandboxConfig(max_workers=1, runtimes=runtimes, cache_dir=None, on_demand=True)
    code = (
        f"def main(ctx):\n    return ctx.http.request('GET', '{stand_in.origin}/rates')['status']\n"
    )
    async with Sandbox(config) as box:
        status = await _run(db, box, secret_box, clock, tenant_id, code, timeout_ms=1000)
    assert status == 200 and len(stand_in.received) == 1


@pytest.mark.parametrize("runtime", ["python", "micropython"])
async def test_an_allowed_call_carries_a_secret_the_script_never_sees_and_a_key_per_call(
    db, both_pythons, secret_box, clock, tenant_id, stand_in: StandIn, runtime: str
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    async with db.begin() as conn:
        await tenant_secrets.put(conn, secret_box, tenant_id, "stripe", VALUE, clock.now())
    code = (
        "def main(ctx):\n"
        f"    rates = ctx.http.request('GET', '{stand_in.origin}/rates')\n"
        "    auth = {'Authorization': 'Bearer ' + ctx.secret_ref('stripe')}\n"
        f"    echo = ctx.http.request('POST', '{stand_in.origin}/echo', auth, 'hello')\n"
        "    return [rates['status'], rates['body'], echo['body']]\n"
    )
    status, rates, echo = await _run(
        db, both_pythons, secret_box, clock, tenant_id, code, runtime=runtime
    )  # type: ignore[misc]
    assert status == 200 and '"USD": 1.08' in rates
    assert VALUE not in echo and "Bearer [secret]" in echo
    (_, _, first, _), (method, _, second, body) = stand_in.received
    assert method == "POST" and body == b"hello" and second["Authorization"] == f"Bearer {VALUE}"
    keys = [first["Idempotency-Key"], second["Idempotency-Key"]]
    assert keys[0].endswith("/0") and keys[1].endswith("/1") and keys[0][:-2] == keys[1][:-2]


async def test_private_addresses_are_refused_however_they_are_spelt(
    db, both_pythons, secret_box, clock, tenant_id, stand_in: StandIn
) -> None:
    port = stand_in.port
    hosts = [
        "127.0.0.1",  # loopback
        "localhost",  # a name resolving to loopback
        "2130706433",  # 127.0.0.1 in decimal
        "0x7f000001",  # in hex
        "0177.0.0.1",  # in octal
        "127.1",  # shortened
        "[::ffff:127.0.0.1]",  # IPv6-mapped
        "[::1]",  # IPv6 loopback
        "169.254.169.254",  # cloud metadata (link-local)
        "10.0.0.1",  # private
    ]
    await allow(db, tenant_id, *(f"http://{h}:{port}" for h in hosts))
    urls = [f"http://{h}:{port}/echo" for h in hosts]
    code = _attempts(urls)
    answers = await _run(db, both_pythons, secret_box, clock, tenant_id, code, PUBLIC_ONLY)
    assert all(isinstance(a, str) for a in answers), answers  # every one refused, none answered
    assert stand_in.received == []


async def test_only_allowed_origins_are_called_and_redirects_are_checked_again(
    db, both_pythons, secret_box, clock, tenant_id, stand_in: StandIn
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    origin, other = stand_in.origin, f"http://localhost:{stand_in.port}"
    urls = [
        f"{origin}/redirect?to=/rates",  # onto the list: followed
        f"{origin}/redirect?to={other}/echo",  # off the list: refused
        f"{other}/echo",  # not on the list
        f"https://127.0.0.1:{stand_in.port}/echo",  # a scheme the operator does not allow
    ]
    answers = await _run(db, both_pythons, secret_box, clock, tenant_id, _attempts(urls))
    assert answers[0] == 200  # type: ignore[index]
    assert all("allow-list" in a for a in answers[1:3]), answers  # type: ignore[index]
    assert "allow-list" in answers[3]  # type: ignore[index]
    paths = [path for _, path, _, _ in stand_in.received]
    assert paths == ["/redirect?to=/rates", "/rates", f"/redirect?to={other}/echo"]


async def test_large_answers_many_calls_and_reserved_headers_are_refused(
    db, both_pythons, secret_box, clock, tenant_id, stand_in: StandIn
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    policy = HttpPolicy(
        schemes=frozenset({"http"}),
        allow_private=True,
        max_calls_per_run=4,
        max_response_bytes=10_000,
    )
    origin = stand_in.origin
    urls = [f"{origin}/big?bytes=9000", f"{origin}/big?bytes=20000", f"{origin}/rates"]
    urls += [f"{origin}/rates", f"{origin}/rates"]
    answers = await _run(db, both_pythons, secret_box, clock, tenant_id, _attempts(urls), policy)
    assert answers[0] == 200 and "larger than 10000 bytes" in answers[1]  # type: ignore[index]
    assert answers[2:4] == [200, 200] and "more than 4 HTTP calls" in answers[4]  # type: ignore[index]
    host = await _run(
        db,
        both_pythons,
        secret_box,
        clock,
        tenant_id,
        _attempts([f"{origin}/echo"], "{'Host': 'evil'}"),
    )
    assert "sets these headers itself" in host[0]  # type: ignore[index]


@pytest.fixture
def engine_config() -> EngineConfig:
    return EngineConfig(
        node_name="test-node", max_concurrency=2, wake_cap_s=0.2, http=LOOPBACK_ALLOWED
    )


async def test_a_retried_occurrence_presents_the_same_keys_and_its_calls_are_recorded(
    service: EngineService, db, tenant_id, clock: ManualClock, stand_in: StandIn
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    calls = (
        f"    ctx.http.request('GET', '{stand_in.origin}/rates')\n"
        f"    ctx.http.request('POST', '{stand_in.origin}/echo', None, 'x')\n"
    )
    done = await run_twice(service, tenant_id, clock, calls)
    keys = [headers["Idempotency-Key"] for _, _, headers, _ in stand_in.received]
    assert len(keys) == 4 and keys[:2] == keys[2:] and keys[0] != keys[1]
    for run in done:
        assert run.calls is not None
        assert [(c.method, c.host, c.status) for c in run.calls] == [
            ("GET", "127.0.0.1", 200),
            ("POST", "127.0.0.1", 200),
        ]
        assert run.calls[1].bytes_sent == 1 and run.calls[0].bytes_received > 0
