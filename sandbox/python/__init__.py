"""The `python` runtime: RestrictedPython in confined worker processes."""
