"""The MicroPython program that hosts a tenant's script inside the WASI interpreter.

MicroPython compiles source slowly (a 1 300-character prelude cost ~4 M fuel, ~0.7 ms, per
run) and parses JSON slowly (~750 fuel a character), so a run does little of either:

- `BOOT`, the only source compiled on every run, allocates a zeroed buffer and passes it as
  the payload of `host.call('__rom', buffer)`. The host overwrites it with a read-only
  filesystem image holding `PRELUDE` as bytecode (`micropython_rom`, compiled once per process
  by `mpy-cross`) plus one mode byte, and answers with the script's source as plain text.
  The boot code mounts the image (read-only, for the rest of the run: the prelude's bytecode
  is used in place, and the failure report is imported from it only when a script fails) on
  a directory already on `sys.path`, and imports the prelude.
- The prelude compiles the script, marks it compiled in the mode byte (the
  host reads the mark only if a trap ends the run: a trap before it is a compile failure), runs
  its top level, then `main(ctx)`, and reports the result (JSON-encoded inside the guest, under
  the guest's limits) with `__result_json`, or the error and its line. `ctx` fetches the
  context (`__context`) the first time the script reads an attribute of it.

A trivial run makes two host calls. Calls named `__...` belong to the prelude; everything else
is the tenant's host API (the prelude names the kv operations `get`, `set`, `delete`, `keys`,
`incr`, `set_if`).
Answers are JSON: `[value]`, or the refusal's message as a string, or `1` when the answer did
not fit the room offered and must be fetched with `__again`.
`print` is routed over the same channel (WASI stdout is not connected at all), so output is
capped as it is written.

Loading bytecode interns each global, attribute, argument, function and class name and each
short string (~7 000 fuel each, unless it is one of MicroPython's static qstrs such as `get`,
`value`, `key`, `print` or `main`), so `PRELUDE` reuses names; locals are free. The readable
reference for each piece is the python runtime's `scriptapi.py`.
"""

#: The module name the prelude is imported as, and the one that reports failures.
MODULE = "cadenza"
REPORT_MODULE = "cadenza_report"
#: Where its image is mounted (read-only, for the run): a directory already on `sys.path`.
MOUNT = "/usr/lib/micropython"

BOOT = f"""import host,vfs
_=bytes({{size}})
value=host.call('__rom',_)
vfs.mount(vfs.VfsRom(_),'{MOUNT}')
import {MODULE}
"""

PRELUDE = r"""
import host, json, uctypes, __main__

send = host.call
dumps = json.dumps
loads = json.loads


class HostError(Exception):
    pass


# A host API call: answers are [value], an error message, or 1 (held back: fetch it).
def call(key, *args):
    value = loads(send(key, dumps(args)))
    if value == 1:
        value = loads(send("__again", ""))
    if isinstance(value, str):
        raise HostError(value)
    return value[0]


class kv:
    def get(self, key, value=None):
        found = call("get", key)
        return value if found is None else found

    def set(self, key, value):
        call("set", key, value)

    def delete(self, key):
        call("delete", key)

    def keys(self, key=""):
        return call("keys", key)

    def incr(self, key, value=1):
        call("incr", key, value)

    def set_if(self, key, expected, value):
        return call("set_if", key, expected, value)


# ctx and ctx.rule: attributes are read from `_`, the context fetched on first use.
class X:
    def __getattr__(self, key):
        found = self._
        if callable(found):
            found = self._ = found()
        if key in found:
            return found[key]
        raise AttributeError(key)

    def emit(self, type, value=None):
        call("emit", type, value)

    def log(self, *args):
        parts = []
        for value in args:
            parts.append(value if isinstance(value, str) else repr(value))
        call("log", " ".join(parts))


def values():
    found = call("__context")
    rule = X()
    rule._ = found["rule"]
    found["rule"] = rule
    found["kv"] = kv()
    return found


def print(*args, sep=" ", end="\n"):
    send("__print", dumps([sep.join(map(str, args)) + end]))


# Failures are reported by a module of their own, loaded only when a script fails.
def write(key, value):
    __import__("@REPORT@").write(key, value)


# Compiles the script (marking it compiled), runs its top level, then main(ctx). Its frame
# stays small: a large one lives on the heap, where the collector of this build misses it.
def main():
    buffer = __main__._
    try:
        code = compile(__main__.value, "<script>", "exec")
    except MemoryError:
        __main__.value = None
        return send("__memory", dumps([0]))  # allocating collects the script's garbage
    except BaseException as value:
        return write(0, value)
    __main__.value = None
    uctypes.bytearray_at(uctypes.addressof(buffer) + len(buffer) - 1, 1)[0] |= 1
    scope = {"__name__": "script", "HostError": HostError, "print": print}
    try:
        exec(code, scope)
        code = scope.get("main")
        if not callable(code):
            return write(2, None)
        if buffer[-1] == 3:  # validating: it compiles, its top level runs, it has a main
            return send("__result_json", dumps(None))
        buffer = X()
        buffer._ = values
        buffer = code(buffer)
    except MemoryError:
        scope = code = None
        return send("__memory", dumps([1]))
    except BaseException as value:
        return write(1, value)
    try:
        code = dumps(buffer)
    except BaseException as value:
        return write(3, (type(buffer).__name__, str(value)))
    send("__result_json", code)


main()
""".replace("@REPORT@", REPORT_MODULE)

#: How a script failed (`write(kind, value)` in `PRELUDE`): its error's last line and its line
#: in the script, or that it has no `main`, or what `main` returned that is not JSON.
REPORT = r"""
import io, sys
from @MODULE@ import call


def write(key, value):
    if key == 2:
        return call("__nomain")
    if key == 3:
        return call("__notjson", value[0], value[1])
    text = io.StringIO()
    sys.print_exception(value, text)
    line = None
    for part in text.getvalue().split("\n"):
        if '"<script>", line ' in part:
            line = int(part.split('"<script>", line ')[1].split(",")[0])
    call("__failed" if key else "__rejected", text.getvalue().strip().split("\n")[-1], line)
""".replace("@MODULE@", MODULE)
