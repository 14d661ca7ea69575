"""Standalone benchmarks: `python -m bench.<name>`."""
