"""One run's door to its tenant's secrets: `ctx.secrets.get(name)`, and what to redact after.

A value is opened only when the script asks for it by name, once per run, and remembered: the
run's record, events and kv writes are then redacted of every value it was given
(`engine.runs.redaction`). A node without the operator key answers with a clear refusal rather
than failing the run's engine side.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from engine.runs.redaction import Redactor
from tenants import tenant_secrets
from tenants.secret_box import SecretBox

#: The redactor of a run given no secret (most runs): built once, it changes nothing.
_NOTHING_GIVEN = Redactor(())


class ScriptSecrets:
    """The secrets of one tenant as one run sees them."""

    def __init__(self, db: AsyncEngine, box: SecretBox | None, tenant_id: str) -> None:
        self._db = db
        self._box = box
        self._tenant_id = tenant_id
        #: name -> value of every secret this run was given.
        self._given: dict[str, str] = {}

    async def get(self, name: str) -> str | None:
        """The value of secret `name` (None when the tenant has none of that name); raises
        ValueError (the script's HostError) for a bad name or a node without the key."""
        tenant_secrets.check_name(name)
        if name in self._given:
            return self._given[name]
        if self._box is None:
            raise ValueError(
                "secrets are not available on this engine node: it was started without the "
                "operator key (see docs/operations.md, 'Secrets and the operator key')"
            )
        async with self._db.connect() as conn:
            value = await tenant_secrets.read(conn, self._box, self._tenant_id, name)
        if value is not None:
            self._given[name] = value
        return value

    def redactor(self) -> Redactor:
        """What takes every value given to this run out of what it leaves behind."""
        return Redactor(self._given.values()) if self._given else _NOTHING_GIVEN
