"""The script of the lost-update report: read a counter, wait, write it back plus one."""

from __future__ import annotations

#: Returns the value it read; `params.sleep_s` is how long it waits between read and write.
READ_MODIFY_WRITE = """
import time
def main(ctx):
    n = ctx.kv.get("counter", 0)
    time.sleep(ctx.params["sleep_s"])
    ctx.kv.set("counter", n + 1)
    return n
"""
