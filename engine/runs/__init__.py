"""One run: executed in the sandbox, then recorded with its effects."""
