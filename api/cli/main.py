"""Entry point of the `cadenza` command.

Each command lives in its own module of this package and is registered here, so adding a
command never means editing another command's module. Exit codes: 0 success, 1 the work
failed (a run, a check), 2 bad input or an environment problem (bad URL, unreachable
database) — always with a one-line message, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

#: name -> (module, attribute, one-line help) of every top-level command, in `--help` order.
#: Modules are imported only when their command runs: `cadenza --help` and the light
#: commands start without loading the web stack, the sandbox or wasmtime.
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "serve": ("api.cli.serve", "serve", "Serve the REST API, the admin UI and the engine."),
    "worker": ("api.cli.worker", "worker", "Run the engine alone (scale out on PostgreSQL)."),
    "db": ("api.cli.db", "db", "Create and migrate the database schema."),
    "tenant": ("api.cli.tenants", "tenant", "Create and list tenants."),
    "key": ("api.cli.tenants", "key", "Create, list and revoke API keys."),
    "secrets": (
        "api.cli.secrets",
        "secrets_group",
        "Seal stored secrets; rotate the operator key.",
    ),
    "script-secrets": (
        "api.cli.script_secrets",
        "script_secrets",
        "A server's secrets for scripts: put, list, delete.",
    ),
    "capabilities": (
        "api.cli.capabilities",
        "capabilities",
        "Grant tenants capabilities for ctx.call.",
    ),
    "preview": ("api.cli.preview", "preview", "Show a schedule's next dates and its text."),
    "run-script": ("api.cli.run_script", "run_script", "Run a script once in the sandbox."),
    "bench": ("api.cli.bench", "bench", "Run the benchmarks against APScheduler."),
    "rules": ("api.cli.rules", "rules", "A server's rules: list, pause, export, import..."),
    "actions": ("api.cli.queue", "actions", "A server's actions: submit, list, cancel."),
    "runs": ("api.cli.queue", "runs", "A server's runs: list, get."),
}


#: The remote commands use the client library, a distribution of its own (`client/`).
CLIENT_PACKAGE = "cadenza_client"
CLIENT_HINT = "the client library: pip install -e ./client (see docs/client.md)"


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module, attribute, _ = _COMMANDS[cmd_name]
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as missing:
            if missing.name != CLIENT_PACKAGE:
                raise
            click.echo(f"cadenza: error: `cadenza {cmd_name}` needs {CLIENT_HINT}", err=True)
            sys.exit(2)
        command: click.Command = getattr(loaded, attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, _, text) in _COMMANDS.items()])


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="cadenza", prog_name="cadenza")
def cli() -> None:
    """Cadenza: run tenants' scripts on their schedules, on time and exactly once."""


def main() -> None:
    cli(prog_name="cadenza")
