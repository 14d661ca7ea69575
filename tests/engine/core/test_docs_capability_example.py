"""The capability example of docs/scripts.md (weekly report by email) runs as printed, in both
Python runtimes, against the stand-in product: one mail with the week's total, to the managers;
a wrong address in params is refused with its path before the product sees it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from capability_trials import deps_of, grant
from support.host_product import HostProduct

from engine.runs.trial import test_run as trial_run
from tenants import kv

DOC = (Path(__file__).resolve().parents[3] / "docs" / "scripts.md").read_text()
EXAMPLE = re.search(
    r"### Capability example: weekly report by email.*?```python\n(.*?)```", DOC, re.S
)
MANAGERS = ["ada@example.com", "bob@example.com"]


@pytest.mark.parametrize("runtime", ["python", "micropython"])
async def test_the_weekly_report_mails_the_managers_once(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy, runtime
) -> None:
    assert EXAMPLE is not None
    await grant(db, tenant_id, "mail.send")
    async with db.begin() as conn:
        for key, orders in {"sales/mon": 3, "sales/tue": 4}.items():
            await kv.put_value(conn, tenant_id, key, orders)
    deps = deps_of(db, every_runtime, secret_box, clock, policy)

    async def report(managers: list[str]) -> object:
        return await trial_run(
            deps,
            tenant_id,
            code=EXAMPLE.group(1),
            runtime=runtime,
            params={"managers": managers},
            timeout_ms=5000,
            memory_mb=128,
        )

    done = await report(MANAGERS)
    assert done.outcome.result == {"orders": 7, "mailed": True}, done.outcome.error
    assert done.kv_changes == {
        f"mailed/{clock.now().date()}": host_product.calls()[0]["occurrence_id"] + "/call/0"
    }
    (mail,) = host_product.mail.values()
    assert mail["to"] == MANAGERS and mail["text"] == "Orders this week: 7"
    refused = await report(["ada@example.com", "bob"])
    assert refused.outcome.status == "error" and "$.to[1]" in (refused.outcome.error or "")
    assert len(host_product.received) == 1
