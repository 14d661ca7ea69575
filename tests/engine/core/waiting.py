"""The engine tests wait with the shared helper (`support.waiting`)."""

from support.waiting import eventually

__all__ = ["eventually"]
