"""The package layering of DESIGN.md, held by import-linter on every test run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def test_imports_point_downward_only() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _cycles(package: str) -> list[tuple[str, ...]]:
    """Each import of a module of `package` that leads back to it: the loop it closes."""
    graph = grimp.build_graph(package)
    found = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                found.append((module, *back))
    return found


def test_engine_modules_import_no_cycle() -> None:
    """A module never imports, even for type checking only, one that imports it back: the
    loop's owner passes what its parts need to them (`engine.loop.tenant_loop`, `housekeeping`,
    `stopping` take what they use), and a part reads a record, not its caller's class."""
    assert _cycles("engine") == []
