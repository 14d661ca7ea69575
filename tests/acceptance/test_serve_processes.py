"""`cadenza serve` as separate processes under one supervisor, with real processes: a write
through any API process wakes the engine process at once (the engine's own poll is set far
longer than the test waits), `/metrics` on the API holds the engine's counters and every API
process's requests, a tenant's request quota holds over all API processes, `/readyz` asks the
engine, a saturated engine leaves the API answering,
and an engine process killed with SIGKILL takes `serve` down with a message naming it, after
which a restart runs what it had claimed; an API process killed so takes it down the same way,
its engine stopped with it; and a supervisor killed so leaves no process of its own behind."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families
from support.api_servers import KINDS, new_database_url
from support.operator import ADMIN_TOKEN, BUSY_QUOTAS, create_tenant_over_api
from support.polling import until
from support.processes import Server, running_server

from api.settings import Settings

#: The engine looks at the queue on its own only this rarely: anything sooner is the wake.
POLL_S = "120"
#: A generous bound for a woken action to have run, far below the engine's own poll.
WOKEN_WITHIN_S = 30.0
SERVE_ENV = {
    "CADENZA_ADMIN_TOKEN": ADMIN_TOKEN,
    "CADENZA_WAKE_CAP_S": POLL_S,
    "CADENZA_API_WORKERS": "2",
    "CADENZA_MAX_CONCURRENCY": "2",
}
QUICK = "def main(ctx):\n    return 1\n"
#: A run that keeps its sandbox worker's CPU busy for three seconds.
BUSY = (
    "import time\n"
    "def main(ctx):\n"
    "    end = time.time() + 3\n"
    "    while time.time() < end:\n"
    "        pass\n"
)


@pytest.fixture(scope="module", params=KINDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One `serve` per database kind for the tests that only watch it (each its own tenant)."""
    url = new_database_url(request.param, request, tmp_path_factory)
    with running_server(url, "--no-demo", env=SERVE_ENV) as server:
        yield server


def _fresh(server: Server, key: str) -> httpx.Client:
    """A client of its own (a new connection, so requests spread over the API processes)."""
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


def _submit(server: Server, key: str, code: str) -> int:
    with _fresh(server, key) as client:
        body = {"run_at": datetime.now(UTC).isoformat(), "code": code}
        answer = client.post("/v1/actions", json=body)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def _status(server: Server, key: str, action_id: int) -> str:
    with _fresh(server, key) as client:
        return str(client.get(f"/v1/actions/{action_id}").json()["status"])


def _samples(server: Server, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    text = httpx.get(f"{server.base_url}/metrics", headers=headers, timeout=30).text
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    }


def test_one_offs_submitted_through_any_api_process_wake_the_engine(served: Server) -> None:
    tenant = create_tenant_over_api(served.base_url, BUSY_QUOTAS)
    ids = [_submit(served, tenant["api_key"], QUICK) for _ in range(6)]
    started = time.monotonic()
    for action_id in ids:
        until(
            lambda n=action_id: _status(served, tenant["api_key"], n) == "succeeded", WOKEN_WITHIN_S
        )
    assert time.monotonic() - started < WOKEN_WITHIN_S
    runs = _samples(served, "cadenza_runs_total")
    assert sum(runs.values()) == len(ids), runs
    requests = _samples(served, "cadenza_http_requests_total")
    posted = [v for labels, v in requests.items() if dict(labels).get("route") == "/v1/actions"]
    assert sum(posted) == len(ids), "every API process's requests are counted"


def _trigger(server: Server, key: str, code: str) -> int:
    """A yearly rule running `code` (30 s allowed, a retry), triggered now: the action's id."""
    with _fresh(server, key) as client:
        rule = {"name": "yearly", "schedule": "every year", "code": code}
        made = client.post("/v1/rules", json=rule | {"timeout_ms": 30_000, "max_attempts": 2})
        assert made.status_code == 201, made.text
        triggered = client.post(f"/v1/rules/{made.json()['id']}/trigger")
        assert triggered.status_code in (200, 201, 202), triggered.text
    return int(triggered.json()["id"])


def test_a_rule_triggered_through_the_api_runs_at_once(served: Server) -> None:
    tenant = create_tenant_over_api(served.base_url, BUSY_QUOTAS)
    action_id = _trigger(served, tenant["api_key"], QUICK)
    until(lambda: _status(served, tenant["api_key"], action_id) == "succeeded", WOKEN_WITHIN_S)


def test_a_tenants_request_quota_holds_over_every_api_process(served: Server) -> None:
    per_minute = 10
    tenant = create_tenant_over_api(served.base_url, {"requests_per_minute": per_minute})
    started = time.monotonic()
    answers = [_fresh_get(served, tenant["api_key"], "/v1/rules") for _ in range(3 * per_minute)]
    refilled = (time.monotonic() - started) * per_minute / 60
    ok = answers.count(200)
    assert set(answers) == {200, 429}, answers
    # One process each would let up to 2 x 10 through; shared buckets let 10 and the refill.
    assert per_minute <= ok <= per_minute + int(refilled) + 1, (ok, refilled)


def _fresh_get(server: Server, key: str, path: str) -> int:
    with _fresh(server, key) as client:
        return client.get(path).status_code


def test_readyz_asks_the_engine_process(served: Server) -> None:
    answer = httpx.get(f"{served.base_url}/readyz", timeout=30)
    assert answer.status_code == 200 and answer.json() == {"status": "ready"}, answer.text


def test_the_api_answers_while_the_engine_is_saturated(served: Server) -> None:
    tenant = create_tenant_over_api(served.base_url, BUSY_QUOTAS)
    ids = [_submit(served, tenant["api_key"], BUSY) for _ in range(40)]
    with _fresh(served, tenant["api_key"]) as client:
        until(lambda: client.get("/v1/actions?status=running").json()["items"], 60)
        answers = [_timed_get(client, "/v1/rules") for _ in range(40)]
        waiting = client.get("/v1/actions?status=running").json()["items"]
        for action_id in ids:  # the backlog outlasts the requests by far: spare the CPU
            client.post(f"/v1/actions/{action_id}/cancel")
    assert all(status == 200 for status, _ in answers), answers
    # Generous: idle, the route answers in milliseconds; a starved API would take seconds.
    assert max(took_s for _, took_s in answers) < 5.0, answers
    # Claimed ahead and still unfinished: more than its two run slots, so it was saturated.
    assert len(waiting) > 2, f"the engine was not saturated while the API answered ({ids})"


def _timed_get(client: httpx.Client, path: str) -> tuple[int, float]:
    began = time.monotonic()
    status = client.get(path).status_code
    return status, time.monotonic() - began


def _engine_pid(server: Server) -> int:
    found = until(lambda: re.search(r"engine process started \(pid (\d+)\)", "".join(server.lines)))
    return int(found.group(1))


def test_the_api_processes_run_below_the_engines_cpu_priority(served: Server) -> None:
    """Clients that saturate the cores take the API processes' time, not the engine's."""
    engine = psutil.Process(_engine_pid(server=served))
    pids = until(lambda: _api_pids(served) if len(_api_pids(served)) == 2 else None)
    step = Settings.model_fields["api_nice"].default
    assert step > 0
    for pid in pids:
        assert psutil.Process(pid).nice() == engine.nice() + step


def _api_pids(server: Server) -> list[int]:
    found = re.findall(r"API process \d+ started \(pid (\d+)\)", "".join(server.lines))
    return [int(pid) for pid in found]


@pytest.mark.timeout(360)  # two starts of `serve`, a kill and a retry, on a busy machine
def test_a_killed_engine_process_takes_serve_down_and_a_restart_runs_its_claims(
    database_url: str,
) -> None:
    # The first attempt runs long enough to be seen running however slow the API answers on a
    # loaded machine (a few seconds' run could end between two looks); the retry ends at once.
    first_runs_long = (
        "import time\ndef main(ctx):\n    if ctx.attempt == 1:\n        time.sleep(25)\n"
    )
    with running_server(database_url, "--no-demo", env=SERVE_ENV) as server:
        tenant = create_tenant_over_api(server.base_url, BUSY_QUOTAS)
        action_id = _trigger(server, tenant["api_key"], first_runs_long)
        until(lambda: _status(server, tenant["api_key"], action_id) == "running", 60)
        _kill_and_see_serve_go_down(server, _engine_pid(server), "engine process")
    with running_server(database_url, "--no-demo", env=SERVE_ENV) as restarted:
        until(lambda: _status(restarted, tenant["api_key"], action_id) == "succeeded", 90)


@pytest.mark.timeout(240)
def test_a_killed_api_process_takes_serve_down_and_stops_the_engine(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with running_server(url, "--no-demo", env=SERVE_ENV) as server:
        found = until(
            lambda: re.search(r"API process 1 started \(pid (\d+)\)", "".join(server.lines))
        )
        engine_pid = _engine_pid(server)
        _kill_and_see_serve_go_down(server, int(found.group(1)), "API process 1")
        assert not psutil.pid_exists(engine_pid), "the engine process outlived serve"


def _kill_and_see_serve_go_down(server: Server, pid: int, role: str) -> None:
    """SIGKILL one of serve's children: serve exits 1, with a line naming it and how it died."""
    os.kill(pid, signal.SIGKILL)
    try:
        assert server.process.wait(timeout=90) == 1
    except subprocess.TimeoutExpired:
        raise AssertionError("".join(server.lines)) from None
    died = rf"the {role} \(pid {pid}\) was killed by SIGKILL; stopping"
    until(lambda: re.search(died, "".join(server.lines)))


@pytest.mark.timeout(240)
def test_a_killed_supervisor_leaves_no_process_behind(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with running_server(url, "--no-demo", env=SERVE_ENV) as server:
        _engine_pid(server)  # the engine runs (and its sandbox's zygote with it)
        descendants = psutil.Process(server.process.pid).children(recursive=True)
        assert len(descendants) >= 3, descendants  # the engine and two API processes, at least
        server.process.kill()
        server.process.wait(timeout=30)
        try:
            until(lambda: not [p for p in descendants if _running(p)], 90)
        finally:  # any left hold serve's output pipe, which the test closes next
            for orphan in descendants:
                with contextlib.suppress(psutil.NoSuchProcess):
                    orphan.kill()


def _running(process: psutil.Process) -> bool:
    """Alive and not a zombie (an orphan's end is reaped by whatever init the machine has)."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
