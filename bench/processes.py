"""Child processes of the suite: the `cadenza` command, `python -m` modules, a clean stop."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CADENZA = str(Path(sys.executable).with_name("cadenza"))
STOP_TIMEOUT_S = 20.0


def clean_env() -> dict[str, str]:
    """This environment without CADENZA_* settings: the suite passes what it means explicitly."""
    return {k: v for k, v in os.environ.items() if not k.startswith("CADENZA_")}


@dataclass(frozen=True)
class Child:
    """A background `cadenza` process and the file its output goes to."""

    process: subprocess.Popen[bytes]
    log_path: Path

    def exited(self) -> str | None:
        """None while it runs; else its exit code and the end of its output, for a message."""
        if self.process.poll() is None:
            return None
        tail = self.log_path.read_text(errors="replace").strip().splitlines()[-5:]
        return f"exited with {self.process.returncode}: " + " | ".join(tail)


def start_cadenza(
    args: list[str],
    log_path: Path,
    settings: dict[str, str] | None = None,
    command: Sequence[str] = (CADENZA,),
) -> subprocess.Popen[bytes]:
    """`cadenza ARGS…` (or `command ARGS…`) in the background, stdout and stderr appended to
    `log_path`, with `settings` (`CADENZA_…` variables) on top of a clean environment."""
    with log_path.open("ab") as log:
        return subprocess.Popen(
            [*command, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env() | (settings or {}),
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited in time; always reaped."""
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def run_module(module: str, *args: str) -> tuple[int, str, str]:
    """`python -m MODULE ARGS…` to completion: (exit code, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    return process.returncode or 0, stdout.decode(), stderr.decode()
