"""The worked examples of docs/scripts.md (HTTP, secrets, kv) run as printed, in both Python
runtimes (the cart reminder, which uses `datetime`, in `python`), against a local stand-in for
the services they call."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from http_trials import allow, trial
from support.stand_in import StandIn

from tenants import tenant_secrets

DOC = (Path(__file__).resolve().parents[3] / "docs" / "scripts.md").read_text()
EXAMPLES = dict(re.findall(r"### Worked example: ([^\n]+)\n\n.*?```python\n(.*?)```", DOC, re.S))
TOKEN = "xoxb-000-test-token"


def _params(name: str, origin: str) -> dict[str, object]:
    return {
        "exchange rates into kv": {"rates_url": f"{origin}/rates"},
        "Slack ping": {"url": f"{origin}/echo", "channel": "#deploys"},
        "abandoned-cart reminder": {"carts_url": f"{origin}/carts"},
    }[name]


EXPECTED = {
    "exchange rates into kv": {"usd": 1.08, "currencies": 2},
    "Slack ping": {"sent": True},
    "abandoned-cart reminder": {"reminded": 1},
}


def test_every_worked_example_is_covered() -> None:
    assert set(EXAMPLES) == set(EXPECTED)


#: (example, runtime) pairs: MicroPython has no `datetime`, which the cart reminder uses.
CASES = [
    (name, runtime)
    for name in sorted(EXPECTED)
    for runtime in ("python", "micropython")
    if (name, runtime) != ("abandoned-cart reminder", "micropython")
]


@pytest.mark.parametrize(("name", "runtime"), CASES)
async def test_worked_example_runs_as_documented(
    db, both_pythons, secret_box, clock, tenant_id, stand_in: StandIn, runtime: str, name: str
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    async with db.begin() as conn:
        for secret in ("slack_bot", "shop_token"):
            await tenant_secrets.put(conn, secret_box, tenant_id, secret, TOKEN, clock.now())
    params = _params(name, stand_in.origin)
    found = await trial(
        db,
        both_pythons,
        secret_box,
        clock,
        tenant_id,
        EXAMPLES[name],
        runtime=runtime,
        params=params,
    )
    assert found.outcome.result == EXPECTED[name]
    assert len(stand_in.received) == 1
    if name != "exchange rates into kv":
        assert stand_in.received[0][2]["Authorization"] == f"Bearer {TOKEN}"
    if name == "abandoned-cart reminder":
        assert [e.type for e in found.outcome.events] == ["cart.reminder"]
        assert list(found.kv_changes) == ["reminded/first/c1"]
    if name == "exchange rates into kv":
        assert list(found.kv_changes) == [f"rates/{clock.now().date().isoformat()}"]
