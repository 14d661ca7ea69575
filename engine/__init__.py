"""Time and the queue: schedules, the store, the per-tenant timer loops and policies."""
