"""`cadenza serve`'s processes: a supervisor, one engine process and the API's worker processes,
all on the one database (see docs/operations.md, "Processes").

The engine's timer loops never share an event loop or a GIL with request handling, so no client
can take the engine's time. The API processes reach the engine through the wake channel
(`wake`); the engine serves its metrics and readiness to them on a loopback listener
(`engine_link`).
"""
