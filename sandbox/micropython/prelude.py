"""The MicroPython program that hosts a tenant's script inside the WASI interpreter.

MicroPython compiles source slowly and parses JSON slowly (figures in docs/performance.md),
so a run does little of either:

- `BOOT`, the only source compiled besides scripts (one statement, as few tokens as it takes),
  mounts a read-only image of `PRELUDE` and `REPORT` as bytecode (`micropython.bytecode`) that
  the host wrote into pages of its own before the interpreter started, and imports the prelude.
  It leaves no name behind (a script could `import __main__` and find it).
- The prelude asks for the script (`__script`): in a warm worker, everything so far happened
  before the job arrived, and the host answers when it does (`micropython.guest`). The answer
  is a secret token of 16 characters and either `c` and the script's source, which the prelude
  compiles (then it asks again, and the host snapshots the interpreter with the script
  compiled), or the mode (`r` run, `v` validate) once the script is compiled.
- It hides what a script must not reach: `import host` (the raw host call), `uctypes` (raw
  memory, where the token could be read) and `micropython` (`heap_lock`, which would keep the
  prelude from reporting) find a stub that only offers `micropython.const`.
- It marks the script compiled in a byte the host set aside (the host reads the mark only if a
  trap ends the run: a trap before it is a compile failure); it runs the top level, then
  `main(ctx)`, and reports how it ended with `__end`: the token, a letter (`r` result, `v`
  validated, `m` memory, `n` no main, `j` not JSON, `f` failed, `c` does not compile) and
  its details. The host ends the run at the first genuine `__end`; a script cannot make one,
  because everything the prelude uses from then on (the raw call, the token, the encoder and
  the failure report) is a local of `main` or `once`, out of the script's reach: a script can
  replace module attributes and `sys.modules` entries, but not another function's locals.
- Then it asks for the next script, with the same call from the same frame: the host puts
  the whole interpreter back as it was at the first such call, or at the one right after it
  compiled the same script, before it answers, so nothing a run did (globals, modules, heap)
  reaches the next (`micropython.guest`).

A trivial run makes two host calls (three the first time its instance sees the script).
Other calls named `__...` belong to the prelude (`__print`, `__context`, `__again`);
everything else is the tenant's host API (the prelude names the kv
operations `get`, `set`, `delete`, `keys`, `incr`, `set_if`; `ctx.secrets.get` is `secret`,
`ctx.http.request` is `http`, `ctx.call` is `call`, `ctx.schedule` is `schedule`). Answers
are JSON: `[value]`, or the refusal's message as a string, or `1` when the answer did not fit
the room offered and must be fetched with `__again`. `print` is routed over the same channel
(WASI stdout is not connected at all), so output is capped as it is written.

Loading bytecode interns each global, attribute, argument, function and class name and each
short string (~7 000 fuel each, unless it is one of MicroPython's static qstrs such as `get`,
`value`, `key`, `print` or `main`), so `PRELUDE` reuses names; locals are free. The readable
reference for each piece is the python runtime's `scriptapi.py`.
"""

#: The module name the prelude is imported as, and the one that reports failures.
MODULE = "cadenza"
REPORT_MODULE = "cadenza_report"
#: Where the image is mounted (read-only): a directory already on `sys.path`.
MOUNT = "/usr/lib/micropython"
BOOT = (
    "v=__import__('vfs');v.mount(v.VfsRom(__import__('uctypes').bytearray_at({address},{size})),"
    f"'{MOUNT}');del v;__import__('{MODULE}')"
)
#: The secret that authenticates the prelude's `__end` reports.
TOKEN_CHARS = 16

PRELUDE = r"""
import host, json, sys

send = host.call
dumps = json.dumps
loads = json.loads
compiled = None


class HostError(Exception):
    pass


# What `import host`, `uctypes` or `micropython` finds in a script: only `const`.
class hidden:
    def const(self, value):
        return value

    def __getattr__(self, key):
        raise ImportError("this module is not available to scripts")


# A host API call: answers are [value], an error message, or 1 (held back: fetch it).
def call(key, *args):
    value = loads(send(key, dumps(args)))
    if value == 1:
        value = loads(send("__again", ""))
    if isinstance(value, str):
        raise HostError(value)
    return value[0]


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

    def schedule(self, key, value=None, name=None):
        return call("schedule", key, value, name)

    def call(self, key, value=None):
        return call("call", key, value)

    def secret_ref(self, key):
        return "{{secret:" + key + "}}"

    def log(self, *args):
        parts = []
        for value in args:
            parts.append(value if isinstance(value, str) else repr(value))
        call("log", " ".join(parts))


# The context, fetched the first time the script reads it (`ctx.kv` is made then too).
def values():
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

    class secrets:
        def get(self, key, value=None):
            found = call("secret", key)
            return value if found is None else found

    class http:
        def request(self, key, value, headers=None, body=None):
            return call("http", key, value, headers, body)

    found = call("__context")
    found["secrets"] = secrets()
    found["http"] = http()
    rule = X()
    rule._ = found["rule"]
    found["rule"] = rule
    found["kv"] = kv()
    return found


def print(*args, sep=" ", end="\n"):
    send("__print", dumps([sep.join(map(str, args)) + end]))


# Describes a failure as `[message, line]` (JSON), in a module loaded only when a script fails:
# a script may have put another one in its place, which can lie about its own error, but never
# see the token or change the status.
def write(value, encode):
    try:
        return __import__("@REPORT@").write(value)
    except BaseException:
        return encode(["(the error could not be described)", None])


# Compiles the script (marking it compiled) when the host hands over its source (`c`), and
# keeps the code in `compiled`: the host snapshots the interpreter at the next `__script`, so a
# later run of the same script starts with it compiled. Otherwise (`r` run, `v` validate) runs
# the compiled top level, then main(ctx), and returns what `__end` reports. Its frame stays
# small: a large one lives on the heap, where the collector of this build misses it. From the
# moment the script runs, only locals are used to report (see the module docstring).
def once(found, buffer):
    global compiled
    key = found[:16]
    memory = key + "m1"  # made now: reporting a full heap must not need the heap
    encode = dumps
    if found[16] == "c":
        try:
            compiled = compile(found[17:], "<script>", "exec")
        except MemoryError:
            found = None
            return key + "m0"
        except BaseException as value:
            return key + "c" + write(value, encode)
        buffer[0] |= 1
        return None
    sys.modules["host"] = sys.modules["uctypes"] = sys.modules["micropython"] = hidden()
    buffer = found[16] == "v"
    found = None
    code = compiled
    scope = {"__name__": "script", "HostError": HostError, "print": print}
    try:
        exec(code, scope)
        code = scope.get("main")
        if not callable(code):
            return key + "n"
        if buffer:  # validating: it compiles, its top level runs, it has a main
            return key + "v"
        buffer = X()
        buffer._ = values
        buffer = code(buffer)
    except MemoryError:
        scope = code = None
        return memory
    except BaseException as value:
        return key + "f" + write(value, encode)
    try:
        code = encode(buffer)
    except BaseException as value:
        return key + "j" + encode([type(buffer).__name__, str(value)])
    return key + "r" + code


# One run after another, each asked for with the same call from this one frame: the host
# takes its snapshot of the interpreter at the first `__script` and at the one after each
# script compiled, and puts one back at every later one (see `micropython.guest`), so each run
# starts from the same booted state, its script compiled or not.
def main():
    import uctypes

    buffer = uctypes.bytearray_at(@MARK@, 1)
    uctypes = None
    end = send
    run = once
    while True:
        found = end("__script", "")
        if found == "1":  # longer than the room offered: fetch it at its size
            found = end("__again", "")
        found = run(found, buffer)
        if found:
            end("__end", found)


main()
""".replace("@REPORT@", REPORT_MODULE)

#: How a script failed: its error's last line and its line in the script, as JSON.
REPORT = r"""
import io, json, sys


def write(value):
    text = io.StringIO()
    sys.print_exception(value, text)
    line = None
    for part in text.getvalue().split("\n"):
        if '"<script>", line ' in part:
            line = int(part.split('"<script>", line ')[1].split(",")[0])
    return json.dumps([text.getvalue().strip().split("\n")[-1], line])
"""
