"""A tenant's rules as a file: what `cadenza rules export` writes and `import` reads.

The file carries its format and version, so a later Cadenza can read (or refuse) an older
file by name; each rule is its definition only (`NewRule`), with no id, version or history,
so importing it into another tenant creates the same rules afresh.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime

from cadenza_client.models.base import Input
from cadenza_client.models.rules import NewRule


class RulesExport(Input):
    """Rule definitions exported from one tenant (`source`) at `exported_at`."""

    format: Literal["cadenza-rules"] = "cadenza-rules"
    version: Literal[1] = 1
    exported_at: AwareDatetime
    source: str = ""
    rules: tuple[NewRule, ...]
