"""Turning what a tenant saved into script text, with the first checks every runtime shares."""

from __future__ import annotations

from sandbox.errors import ScriptRejected

MAX_SCRIPT_BYTES = 1024 * 1024


def decode_script(script: str | bytes, max_bytes: int = MAX_SCRIPT_BYTES) -> str:
    """UTF-8 text of a python/micropython script; ScriptRejected if too big or not UTF-8."""
    raw = script.encode("utf-8", "surrogatepass") if isinstance(script, str) else bytes(script)
    if len(raw) > max_bytes:
        raise ScriptRejected(f"the script is {len(raw)} bytes; the limit is {max_bytes} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScriptRejected(f"the script is not UTF-8 text (byte {exc.start})", line) from None
    if "\x00" in text:
        raise ScriptRejected(
            "the script contains a NUL character", text[: text.index("\x00")].count("\n") + 1
        )
    return text


def describe_seconds(seconds: float) -> str:
    """`2 s`, `0.25 s`: how limits are quoted back to tenants."""
    return f"{seconds:g} s"
