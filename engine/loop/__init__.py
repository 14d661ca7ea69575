"""The tenant loops and the supervisor that owns them."""
