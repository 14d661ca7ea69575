"""Classic Python sandbox escapes and published RestrictedPython advisories, each with the exact
status it must end in. `rejected` means the compiler refused it; `error` means the guards
refused it while running. Nothing here may come back `ok` with something it should not have.
"""

from __future__ import annotations

import pytest
from support.sandbox_fixtures import body

from sandbox import OutcomeStatus
from sandbox.memory_host import MemoryHost

pytestmark = pytest.mark.asyncio(loop_scope="module")

REJECTED, ERROR = OutcomeStatus.REJECTED, OutcomeStatus.ERROR


CORPUS = [
    # (id, script, status) -- one row per technique
    ("subclasses-walk", body("return ().__class__.__bases__[0].__subclasses__()"), REJECTED),
    ("getattr-dunder", body("return getattr((), '__class__')"), ERROR),
    ("getattr-mro", body("return getattr(int, 'mro')()"), ERROR),
    ("format-attribute", body("return '{0.__class__}'.format(1)"), ERROR),
    ("format-via-type", body("return str.format('{0.__class__}', 1)"), ERROR),
    ("format-map", body("return '{x.__class__}'.format_map({'x': 1})"), ERROR),
    ("getattr-format", body("return getattr('{0.__class__}', 'format')(1)"), ERROR),
    ("fstring-dunder", body("return f'{ctx.__class__}'"), REJECTED),
    ("generator-frame", body("g = (x for x in [1])", "return g.gi_frame.f_back"), REJECTED),
    (
        "generator-frame-getattr",
        body("g = (x for x in [1])", "return getattr(g, 'gi_frame')"),
        ERROR,
    ),
    ("generator-code", body("g = (x for x in [1])", "return getattr(g, 'gi_code')"), ERROR),
    (
        "traceback-frame",
        body("try:", "    1 / 0", "except Exception as e:", "    return e.__traceback__"),
        REJECTED,
    ),
    ("function-globals", body("f = lambda: 0", "return f.__globals__"), REJECTED),
    ("function-globals-getattr", body("f = lambda: 0", "return getattr(f, 'func_globals')"), ERROR),
    ("dunder-import", body("return __import__('os')"), REJECTED),
    ("import-os", "import os\n" + body("return os.listdir('/')"), ERROR),
    ("import-subprocess", "import subprocess\n" + body("return 1"), ERROR),
    ("import-ctypes", "import ctypes\n" + body("return 1"), ERROR),
    ("import-socket", "import socket\n" + body("return 1"), ERROR),
    ("import-importlib", "import importlib\n" + body("return 1"), ERROR),
    (
        "import-string",
        "import string\n" + body("return string.Formatter().format('{0.__class__}', 1)"),
        ERROR,
    ),
    (
        "import-operator",
        "import operator\n" + body("return operator.attrgetter('__class__')(1)"),
        ERROR,
    ),
    ("import-functools", "import functools\n" + body("return 1"), ERROR),
    ("relative-import", "from . import x\n" + body("return 1"), ERROR),
    (
        "module-reaches-sys",
        "import datetime\n" + body("return datetime.sys.modules['os'].getcwd()"),
        ERROR,
    ),
    (
        "module-reaches-codecs",
        "import json\n" + body("return json.codecs.open('/etc/passwd').read()"),
        ERROR,
    ),
    ("from-module-import-module", "from json import decoder\n" + body("return 1"), ERROR),
    ("module-dunder-loader", "import math\n" + body("return math.__loader__"), REJECTED),
    ("module-getattr-loader", "import math\n" + body("return getattr(math, '__loader__')"), ERROR),
    ("open-file", body("return open('/etc/passwd').read()"), ERROR),
    ("builtins-dict", body("return __builtins__"), REJECTED),
    ("globals", body("return globals()"), ERROR),
    ("vars-ctx", body("return vars(ctx)"), ERROR),
    ("type-builtin", body("return type(ctx)"), ERROR),
    ("eval", body("return eval('1')"), REJECTED),
    ("exec", body("exec('x = 1')"), REJECTED),
    ("compile-builtin", body("return compile('1', 'x', 'eval')"), ERROR),
    ("host-private-call", body("return ctx.kv._call('kv_get', ['k'])"), REJECTED),
    ("host-private-getattr", body("return getattr(ctx.kv, '_call')"), ERROR),
    ("host-bound-self", body("return ctx.emit.__self__"), REJECTED),
    ("host-attribute-write", body("ctx.kv = None", "return 1"), ERROR),
    ("setattr-builtin", body("setattr(ctx, 'kv', None)"), ERROR),
    ("print-to-file", body("print('x', file=ctx)"), ERROR),
    ("module-view-write", "import json\n" + body("json.dumps = None", "return 1"), ERROR),
    ("namespace-subscript", "import json\n" + body("return json['dumps']"), ERROR),
]


@pytest.mark.parametrize(("script", "status"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
async def test_escape_attempt_ends_with_exact_status(
    run, script: str, status: OutcomeStatus
) -> None:
    outcome = await run("python", script)
    assert outcome.status is status, (outcome.status, outcome.error)
    assert outcome.result is None and outcome.error


async def test_str_subclass_key_reaches_the_store_as_exact_str(run) -> None:
    script = "class Key(str):\n    def startswith(self, prefix):\n        return True\n" + body(
        "ctx.kv.set(Key('a'), Key('value'))", "return ctx.kv.keys('a')"
    )
    host = MemoryHost()
    outcome = await run("python", script, host=host)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    ((key, value),) = host.kv.items()
    assert type(key) is str and key == "a"
    assert type(value) is str and value == "value"


async def test_host_objects_expose_only_documented_names(run) -> None:
    script = body(
        "names = ['get', 'set', 'delete', 'keys', 'emit', 'log', 'kv', 'params', 'rule',",
        "         'attempt', 'scheduled_at', 'occurrence_id', 'call', 'sock', 'send', 'conn']",
        "found = []",
        "for n in names:",
        "    for obj in (ctx, ctx.kv, ctx.rule):",
        "        if getattr(obj, n, None) is not None:",
        "            found.append(n)",
        "return sorted(set(found))",
    )
    outcome = await run("python", script)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == [  # `call` is ctx.call, the capabilities of docs/scripts.md
        "attempt", "call", "delete", "emit", "get", "keys", "kv", "log", "occurrence_id",
        "params", "rule", "scheduled_at", "set",
    ]  # fmt: skip
