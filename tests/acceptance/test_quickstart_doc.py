"""The quickstart works as written: its shell blocks run, in order, in one shell, against a live
`cadenza serve` started as its first block says, and every request in them succeeds.

Two things a reader fills in are filled in here the same way: the key `serve` printed (the
`cdz_...` placeholder) and the address (this server's port instead of 8000). The first block
(install and start) is what this test does itself: it starts `.venv/bin/cadenza serve` in a
fresh directory whose `.venv` is this one. `curl` fails on any HTTP error here
(`--fail-with-body`), so a block that gets a 4xx or 5xx fails the test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.processes import cli_env, running_server

QUICKSTART = Path(__file__).resolve().parents[2] / "docs" / "quickstart.md"
GNU_ONLY = ("date -d", "date --date", "sed -i", "grep -P", "readlink -f", "xargs -r")
PREAMBLE = 'curl() { command curl --fail-with-body --silent --show-error "$@"; }\n'


def _blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", QUICKSTART.read_text(), flags=re.DOTALL)


def test_quickstart_uses_portable_commands_only() -> None:
    blocks = _blocks()
    assert len(blocks) >= 8
    for gnu in GNU_ONLY:
        assert not any(gnu in block for block in blocks), gnu


def test_quickstart_blocks_run_against_a_live_server(tmp_path: Path) -> None:
    install, *rest = _blocks()
    assert ".venv/bin/cadenza serve" in install
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    url = f"sqlite+aiosqlite:///{tmp_path / 'cadenza.db'}"  # the default ./cadenza.db
    with running_server(url, cwd=tmp_path) as server:
        assert server.demo_key is not None
        script = "\n".join(rest).replace("cdz_...", server.demo_key)
        script = script.replace("http://127.0.0.1:8000", server.base_url)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", PREAMBLE + script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=240,
            env=cli_env(),
        )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert '"name":"heartbeat"' in done.stdout and '"outcome":"ok"' in done.stdout
    assert '"secret":"whsec_' in done.stdout  # the last block made a signing secret
