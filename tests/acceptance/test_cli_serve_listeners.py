"""`cadenza serve --port 0` names the port it bound in its banner, and `--metrics-address`
serves /metrics to the operator's scraper on a listener of its own, without a token, while
the API port keeps /metrics closed to anyone without the operator token. An engine process that
cannot start (its metrics address is taken) takes `serve` down with its reason, leaving no
API process behind."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path

import httpx
import psutil
from support.processes import CADENZA, cli_env

BANNER = re.compile(r"on http://127\.0\.0\.1:(\d+)/ .*metrics at http://127\.0\.0\.1:(\d+)/metrics")


def test_port_zero_banner_names_the_bound_ports_and_metrics_listen_apart(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    log = tmp_path / "serve.log"
    args = ["serve", "--db", url, "--port", "0", "--metrics-address", "127.0.0.1:0", "--no-demo"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [CADENZA, *args], stdout=sink, stderr=subprocess.STDOUT, env=cli_env()
        )
    try:
        deadline = time.monotonic() + 60
        while (
            not (found := BANNER.search(log.read_text()))
            or "startup complete" not in log.read_text()
        ):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        api_port, metrics_port = (int(port) for port in found.groups())
        assert api_port != 0 and metrics_port != 0
        assert httpx.get(f"http://127.0.0.1:{api_port}/healthz").json() == {"status": "ok"}
        scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics")
        assert scraped.status_code == 200 and "cadenza_runs_in_flight" in scraped.text
        assert httpx.get(f"http://127.0.0.1:{api_port}/metrics").status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_engine_that_cannot_start_takes_serve_down_with_its_reason(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = "{}:{}".format(*taken.getsockname())
        args = ["serve", "--db", url, "--port", "0", "--metrics-address", address, "--no-demo"]
        done = subprocess.run(
            [CADENZA, *args], capture_output=True, text=True, env=cli_env(), timeout=90
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"cannot serve metrics on {address}" in done.stderr
    assert "engine process started" not in done.stderr
    assert re.search(
        r"the engine process \(pid \d+\) exited with code 2 before it started", done.stderr
    )
    left = [p.pid for p in psutil.process_iter(["cmdline"]) if url in (p.info["cmdline"] or [])]
    assert left == []
