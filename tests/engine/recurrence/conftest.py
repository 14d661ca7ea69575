"""Make `engine` resolve to the project package, not to the `tests/engine` directory.

pytest puts `tests/` on sys.path (pythonpath = ["tests"]), where `tests/engine` is an implicit
namespace package that shadows the real `engine` package of the editable install. Putting the
project root first makes the regular package win. (Asked the lead to add "." to pythonpath.)
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
if getattr(sys.modules.get("engine"), "__file__", "") is None:
    for name in [n for n in sys.modules if n == "engine" or n.startswith("engine.")]:
        del sys.modules[name]
