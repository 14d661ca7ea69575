"""The exception root of the data layer: every message names the problem and the fix."""

from __future__ import annotations


class CadenzaDataError(Exception):
    """A problem with the database or the tenant data."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or "").strip())


class DatabaseUrlError(CadenzaDataError):
    """The database URL is not supported: use sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER@HOST/DB."""


class DatabaseUnavailable(CadenzaDataError):
    """The database cannot be reached: check the URL and that the server is running."""


class SchemaTooNew(CadenzaDataError):
    """The database was migrated by a newer Cadenza: upgrade Cadenza before using this database."""


class NotFound(CadenzaDataError):
    """No such object for this tenant."""


class Conflict(CadenzaDataError):
    """The object already exists or was changed by someone else."""


class InvalidInput(CadenzaDataError, ValueError):
    """A value is not acceptable; the message says which and why."""
