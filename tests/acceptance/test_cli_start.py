"""A short command starts a process of its own each time, so what it imports is its cost: it
loads the database layer and its settings, never what only a long-running node needs (metrics,
traces, the engine's log records, recurrence, JSON Schema, the HTTP client)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.processes import cli_env

#: Modules a node needs and a short command must not load (a name and everything under it).
NODE_ONLY = (
    "prometheus_client",
    "opentelemetry",
    "jsonschema",
    "httpx",
    "engine.recurrence",
    "engine.ops.logs",
    "engine.ops.tracing",
)
#: Runs `cadenza ARGS…` in this interpreter, then prints the modules it had loaded.
PROBE = """
import json, sys
from api.cli.main import main
sys.argv = ["cadenza", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(sorted(sys.modules)))
"""


def test_creating_a_tenant_loads_nothing_only_a_node_needs(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "tenant", "create", "acme", "--json", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
        env=cli_env(),
    )
    assert done.returncode == 0, done.stderr
    modules = json.loads(done.stdout.splitlines()[-1])
    assert "sqlalchemy.ext.asyncio" in modules and "api.settings" in modules
    loaded = [m for m in modules if any(m == n or m.startswith(f"{n}.") for n in NODE_ONLY)]
    assert loaded == []
