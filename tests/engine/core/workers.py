"""The engine tests start workers with the shared helper (`support.workers`)."""

from support.workers import start_worker, stop, workers

__all__ = ["start_worker", "stop", "workers"]
