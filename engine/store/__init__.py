"""Every statement the engine runs, each a named function over an AsyncConnection."""
