"""Entry point of the `cadenza` command.

Each command lives in its own module of this package and is registered here, so adding a
command never means editing another command's module. Exit codes: 0 success, 1 the work
failed (a run, a check), 2 bad input or an environment problem (bad URL, unreachable
database) — always with a one-line message, never a traceback.
"""

from __future__ import annotations

import importlib

import click

#: (module, attribute) of every top-level command, in `--help` order.
_COMMANDS: tuple[tuple[str, str], ...] = (
    ("api.cli.serve", "serve"),
    ("api.cli.db", "db"),
    ("api.cli.tenants", "tenant"),
    ("api.cli.tenants", "key"),
    ("api.cli.run_script", "run_script"),
    ("api.cli.bench", "bench"),
    ("api.cli.preview", "preview"),
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="cadenza", prog_name="cadenza")
def cli() -> None:
    """Cadenza: run tenants' scripts on their schedules, on time and exactly once."""


for _module, _name in _COMMANDS:
    cli.add_command(getattr(importlib.import_module(_module), _name))


def main() -> None:
    cli(prog_name="cadenza")
