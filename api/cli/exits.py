"""How a command ends: its exit code, and on an error one line of message, never a traceback.

Apart from `api.cli.common` (settings, the database, logging) so that the commands that need
none of that, `preview` and the remote ones, start without loading it.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

#: The work failed (a run, a check).
EXIT_FAILED = 1
#: Bad input or an environment problem (a bad URL, an unreachable database).
EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """End the command with `cadenza: error: message` on stderr and exit code `code`."""
    click.echo(f"cadenza: error: {message}", err=True)
    sys.exit(code)
