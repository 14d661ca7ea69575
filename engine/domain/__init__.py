"""The engine's domain: records, the policies and the planning of occurrences (pure: no I/O)."""
