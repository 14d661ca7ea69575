"""The records the client sends and receives."""
