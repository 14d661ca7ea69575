"""Alembic environment: runs on the connection `engine.store.schema` hands in.

Migrations are driven programmatically (`cadenza db upgrade`), never by the `alembic` command,
so the URL handling and SQLite pragmas of `tenants.db` apply to them too.
"""

from __future__ import annotations

from alembic import context

import engine.store.tables  # noqa: F401  (registers the engine's tables on the metadata)
from tenants.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
