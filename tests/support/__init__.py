"""Test support: real PostgreSQL clusters, real SQLite files, real server processes."""
