"""How long before its due time a node claims an action: a little, or more while claims are slow.

A claim is claimed ahead so that its transaction is out of the way at the due time
(`engine.loop.tenant_loop`). How long a claim takes depends on who else writes: alone it
commits within a few milliseconds, but under API load on SQLite it waits for its turn among
the engine's writers and for the write lock held by API processes, up to tens of
milliseconds, and a claim that ends after the due time makes its run late by the difference.
The lead therefore follows the claims: twice the slowest of the last few, never less than
`CLAIM_AHEAD` and never more than `MAX_LEAD`. When the load goes, the slow claims leave the
window and the lead shrinks back. What is claimed early is not run early (each run waits for
its own due time), and a change committed meanwhile still revokes the claim.
"""

from __future__ import annotations

from collections import deque
from datetime import timedelta

#: The least lead: what a claim takes with the database to itself, with room to spare.
CLAIM_AHEAD = timedelta(milliseconds=25)
#: The most lead, however slow the claims: the window a change can still revoke widens with it.
MAX_LEAD = timedelta(milliseconds=250)
#: Claims remembered: enough to see a slow one among a stream, few enough to forget it soon.
RECENT_CLAIMS = 32


class ClaimLead:
    """The node's lead, shared by its tenants' loops (they wait for the same writers)."""

    def __init__(self) -> None:
        self._took: deque[timedelta] = deque(maxlen=RECENT_CLAIMS)
        self.value = CLAIM_AHEAD

    def note(self, took: timedelta) -> None:
        """A claim took `took`: from the loop's look at the queue (a read, when nothing was
        read ahead) to the claim's commit, all of which comes between a wake and the run."""
        self._took.append(took)
        self.value = min(MAX_LEAD, max(CLAIM_AHEAD, 2 * max(self._took)))
