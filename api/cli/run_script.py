"""`cadenza run-script`: run one script once in the real sandbox, with an in-memory kv.

For tenants trying a script and operators reproducing a run. Exit 0 when the run's status is
`ok`, 1 for any other outcome, 2 for bad command-line input.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import uvloop

from api.cli.paths import sandbox_cache_dir
from sandbox import (
    Limits,
    Outcome,
    RuntimeName,
    Sandbox,
    SandboxConfig,
    SandboxError,
    ScriptContext,
    clean_json,
)
from sandbox.memory_host import MemoryHost

_MAX_FILE_BYTES = 16 * 1024 * 1024
_SUFFIX_RUNTIMES = {".wasm": RuntimeName.WASM, ".wat": RuntimeName.WASM}


class _SandboxUnavailable(click.ClickException):
    """The sandbox itself could not run the script: an environment problem, not an outcome."""

    exit_code = 2


@click.command("run-script")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--runtime",
    type=click.Choice([str(name) for name in RuntimeName]),
    help="How to run FILE (default: wasm for .wasm/.wat files, python otherwise).",
)
@click.option("--timeout-ms", type=click.IntRange(1, 3_600_000), help="Wall-clock limit.")
@click.option("--memory-mb", type=click.IntRange(1, 65_536), help="Memory limit.")
@click.option("--params", default="{}", show_default=True, help="Rule parameters (JSON object).")
@click.option(
    "--kv",
    "kv_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="JSON object file: the tenant's key-value data before the run.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as one JSON object.")
def run_script(
    file: Path,
    runtime: str | None,
    timeout_ms: int | None,
    memory_mb: int | None,
    params: str,
    kv_file: Path | None,
    as_json: bool,
) -> None:
    """Run FILE's main(ctx) once in the sandbox and print what happened."""
    name = (
        RuntimeName(runtime) if runtime else _SUFFIX_RUNTIMES.get(file.suffix, RuntimeName.PYTHON)
    )
    limits = _limits(timeout_ms, memory_mb)
    params_value = _json_object(params, "--params")
    kv = _json_object(_read_text(kv_file), "--kv") if kv_file else {}
    with file.open("rb") as handle:
        script = handle.read(_MAX_FILE_BYTES + 1)
    host = MemoryHost(kv)
    try:
        outcome = uvloop.run(_run(name, script, params_value, limits, host))
    except SandboxError as exc:
        raise _SandboxUnavailable(f"the sandbox could not run: {exc}") from None
    _print(outcome, host, as_json)
    raise SystemExit(0 if outcome.status == "ok" else 1)


def _limits(timeout_ms: int | None, memory_mb: int | None) -> Limits:
    overrides: dict[str, Any] = {}
    if timeout_ms is not None:
        overrides["timeout_s"] = timeout_ms / 1000
    if memory_mb is not None:
        overrides["memory_bytes"] = memory_mb * 1024 * 1024
    return Limits(**overrides)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="--kv") from None


def _json_object(text: str, option: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint=option) from None
    if not isinstance(value, dict):
        raise click.BadParameter("must be a JSON object", param_hint=option)
    return value


async def _run(
    name: RuntimeName, script: bytes, params: dict[str, Any], limits: Limits, host: MemoryHost
) -> Outcome:
    context = ScriptContext(
        tenant_id="cli",
        rule_id=None,
        rule_name=None,
        scheduled_at=datetime.now(UTC),
        attempt=1,
        params=params,
        occurrence_id=f"cli-{uuid.uuid4()}",
    )
    config = SandboxConfig(max_workers=1, runtimes=(name,), cache_dir=sandbox_cache_dir())
    async with Sandbox(config) as sandbox:
        return await sandbox.runtime(name).run(script, context, limits, host)


def _print(outcome: Outcome, host: MemoryHost, as_json: bool) -> None:
    if as_json:  # cleaned: a --kv file may hold lone surrogates too
        click.echo(json.dumps(clean_json({**outcome.to_json(), "kv": host.kv}), ensure_ascii=False))
        return
    click.echo(f"status: {outcome.status}  ({outcome.duration_s * 1000:.1f} ms)")
    if outcome.error:
        click.echo(f"error: {outcome.error}")
    if outcome.stdout:
        click.echo("stdout:\n" + outcome.stdout.rstrip("\n"))
    for event in outcome.events:
        click.echo(f"event: {event.type} {json.dumps(event.payload)}")
    for line in outcome.logs:
        click.echo(f"log: {line}")
    click.echo(f"result: {json.dumps(outcome.result)}")
