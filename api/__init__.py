"""HTTP API, command line and configuration: the only package that reads the environment."""
