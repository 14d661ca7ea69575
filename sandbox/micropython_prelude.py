"""The MicroPython program that hosts a tenant's script inside the WASI interpreter.

It fetches the script over the host-call channel (`host.call(name, json)`, answered by
`micropython_runtime`), compiles it, builds `ctx` and calls `main(ctx)`, then reports the
result (JSON-encoded inside the guest, under the guest's limits) or the error with its line.
Calls named `__...` belong to this prelude; everything else is the tenant's host API.
`print` is routed over the same channel (WASI stdout is not connected at all), so output is
capped as it is written.
"""

PRELUDE = r"""
import host as _h, json as _j, sys as _s, io as _io, gc as _gc

class HostError(Exception):
    pass

def _call(op, *args):
    r = _j.loads(_h.call(op, _j.dumps(args)))
    if "error" in r:
        raise HostError(r["error"])
    return r.get("value")

class _Kv:
    def get(self, key, default=None):
        v = _call("kv_get", key)
        return default if v is None else v
    def set(self, key, value):
        _call("kv_set", key, value)
    def delete(self, key):
        _call("kv_delete", key)
    def keys(self, prefix=""):
        return _call("kv_keys", prefix)

class _Rule:
    def __init__(self, d):
        self.id = d.get("id")
        self.name = d.get("name")

class _Ctx:
    def __init__(self, d):
        self.scheduled_at = d["scheduled_at"]
        self.attempt = d["attempt"]
        self.rule = _Rule(d["rule"])
        self.params = d["params"]
        self.occurrence_id = d["occurrence_id"]
        self.kv = _Kv()
    def emit(self, type, payload=None):
        _call("emit", type, payload)
    def log(self, *values):
        _call("log", " ".join(v if isinstance(v, str) else repr(v) for v in values))

def _print(*values, sep=" ", end="\n"):
    _h.call("__print", _j.dumps([sep.join(str(v) for v in values) + end]))

def _report(kind, e):
    b = _io.StringIO()
    _s.print_exception(e, b)
    line = None
    for part in b.getvalue().split("\n"):
        if '"<script>", line ' in part:
            line = int(part.split('"<script>", line ')[1].split(",")[0])
    _call(kind, b.getvalue().strip().split("\n")[-1], line)

def _run():
    try:
        code = compile(_call("__source"), "<script>", "exec")
    except BaseException as e:
        _report("__rejected", e)
        return
    _call("__compiled")
    g = {"__name__": "script", "HostError": HostError, "print": _print}
    try:
        exec(code, g)
        main = g.get("main")
        if not callable(main):
            _call("__rejected", "the script must define a top-level function main(ctx)", None)
            return
        if _call("__mode") == "validate":
            _call("__result", None)
            return
        r = main(_Ctx(_call("__context")))
    except MemoryError:
        g = r = None
        _gc.collect()  # the script's garbage is unreachable now; reporting needs a buffer
        _h.call("__memory", "[]")
        return
    except BaseException as e:
        _report("__failed", e)
        return
    try:
        text = _j.dumps(r)
    except BaseException as e:
        kind = type(r).__name__
        _call("__failed", "main() returned a %s, which is not JSON: %s" % (kind, e), None)
        return
    _h.call("__result_json", text)

_run()
"""
