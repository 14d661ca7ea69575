"""A property of the boundary: of many generated arguments for `mail.send`, exactly those that
match its schema reach the product, unchanged; every other is refused before anything leaves,
with the path of what is wrong (known by construction: one thing broken in a valid mail)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.host_product import HostProduct

from engine.capabilities.desk import CapabilityDesk
from engine.capabilities.specs import CapabilityPolicy
from engine.clock import SystemClock
from engine.runs.capability_calls import CapabilityCalls
from engine.runs.deadline import RunDeadline
from sandbox import ScriptContext
from tenants import capability_grants
from tenants.db import create_engine
from tenants.registry import create_tenant

words = st.text(st.characters(blacklist_characters="@", blacklist_categories=["Cs"]), min_size=1)
addresses = st.builds(lambda user, host: f"{user}@{host}", words, words)
valid = st.fixed_dictionaries(
    {"to": st.lists(addresses, max_size=3), "subject": st.text(max_size=200), "text": st.text()}
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=5,
)


@st.composite
def broken(draw: st.DrawFn) -> tuple[Any, str]:
    """A valid mail with one thing wrong, and the path the error must name."""
    mail = draw(valid)
    how = draw(st.sampled_from(["drop", "extra", "subject", "address", "text", "shape"]))
    if how == "drop":
        del mail[draw(st.sampled_from(sorted(mail)))]
    elif how == "extra":
        mail[draw(words.filter(lambda k: k not in mail))] = draw(json_values)
    elif how == "subject":
        mail["subject"] = draw(st.text(min_size=201, max_size=300))
    elif how == "address":
        mail["to"].append(draw(words))
        return mail, f"$.to[{len(mail['to']) - 1}]"
    elif how == "text":
        mail["text"] = draw(json_values.filter(lambda v: not isinstance(v, str)))
        return mail, "$.text"
    else:
        return draw(json_values.filter(lambda v: not isinstance(v, dict))), "$"
    return mail, "$.subject" if how == "subject" else "$"


cases = st.one_of(valid.map(lambda mail: (mail, None)), broken())


async def _call(database_url: str, policy: CapabilityPolicy, args: Any) -> str | None:
    """Call mail.send with `args` as a granted tenant's run would; the refusal, if any."""
    db = create_engine(database_url)
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, f"t-{uuid.uuid4().hex}")
            await capability_grants.grant(conn, tenant.id, "mail.send", datetime.now(UTC))
        context = ScriptContext(tenant.id, None, None, datetime.now(UTC), 1, {}, "o:1")
        calls = CapabilityCalls(db, CapabilityDesk(policy), context, RunDeadline(10), SystemClock())
        try:
            await calls.call("mail.send", args)
        except ValueError as exc:
            return str(exc)
        return None
    finally:
        await db.dispose()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=cases)
def test_only_arguments_matching_the_schema_leave_and_they_arrive_unchanged(
    database_url: str, host_product: HostProduct, policy: CapabilityPolicy, case: Any
) -> None:
    args, path = case
    before = len(host_product.received)
    refusal = uvloop.run(_call(database_url, policy, args))
    if path is None:
        assert refusal is None
        assert len(host_product.received) == before + 1
        assert host_product.calls()[-1]["args"] == args
    else:
        assert refusal is not None and f"do not match its schema at {path}:" in refusal
        assert len(host_product.received) == before
