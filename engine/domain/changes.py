"""What a committed write did to a tenant's queue, as the node running its loop is told.

A node may claim an action before it is due (`engine.loop.tenant_loop`); a change committed
before the run starts (an edit, pause or delete of its rule, a cancel, a key re-submission)
revokes that claim, so a claimed run whose tenant changed checks its claim in the database
before it starts. Work only added (a new one-off, a new rule's first occurrence, a run to do
again) revokes nothing: the loop reads the queue again, and the runs it already claimed start
without that check, which under a stream of submissions had cost most runs a read at their
due time (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum


class Change(StrEnum):
    #: Work added: the loop looks at the queue again; no claim is affected.
    ADDED = "added"
    #: Work changed or removed: a claim taken ahead may have been revoked.
    CHANGED = "changed"


#: How a write tells the node of its change: `wake(tenant_id, change)`.
Wake = Callable[[str, Change], None]
