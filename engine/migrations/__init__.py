"""Alembic migrations: the only way the schema is created or changed, on SQLite and PostgreSQL."""
