"""What every scenario is given: the mode, fresh databases, a scratch directory, a logger."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from bench.databases import Databases

T = TypeVar("T")


class Mode(StrEnum):
    QUICK = "quick"
    """Small sizes, under two minutes for the whole suite: proves everything works."""
    FULL = "full"
    """The sizes the report quotes, under fifteen minutes on two cores."""


@dataclass
class Context:
    mode: Mode
    databases: Databases
    work_dir: Path
    log: Callable[[str], None]

    def pick(self, quick: T, full: T) -> T:
        """The quick or the full value of a parameter."""
        return quick if self.mode is Mode.QUICK else full

    @property
    def repeats(self) -> int:
        return 3
