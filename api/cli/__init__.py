"""The `cadenza` command line: one module per command group, registered in `main`."""
