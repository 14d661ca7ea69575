"""A hostile tenant against the doors that leave the machine, with generated inputs: ctx.http
never connects to an internal address however it is spelt, a neighbour's secret is never
given or sent whatever name is guessed, and a neighbour's capability is never called and
answers exactly as an unknown name does. Each example runs the engine's own per-run callers
(`OutboundHttp`, `ScriptSecrets`, `CapabilityCalls`) on a real database against real servers
on loopback, which would record any request that got through."""

from __future__ import annotations

import ipaddress
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import uvloop
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.host_product import SIGNING_KEY, HostProduct
from support.stand_in import StandIn
from support.threaded_server import serving

from engine.capabilities.desk import CapabilityDesk
from engine.capabilities.specs import CapabilityPolicy, specs_from_json
from engine.clock import SystemClock
from engine.config import HttpPolicy
from engine.runs.capability_calls import CapabilityCalls
from engine.runs.deadline import RunDeadline
from engine.runs.outbound_http import OutboundHttp
from engine.runs.script_secrets import ScriptSecrets
from sandbox import ScriptContext
from tenants import capability_grants, http_allowlist, tenant_secrets
from tenants.db import create_engine
from tenants.errors import InvalidInput
from tenants.registry import create_tenant
from tenants.secret_box import KeyRing, SecretBox, new_key

PUBLIC_ONLY = HttpPolicy(schemes=frozenset({"http"}), allow_private=False)
LOOPBACK_ALLOWED = HttpPolicy(schemes=frozenset({"http"}), allow_private=True)
#: What a refused request may say: never a connection error, which would mean it was tried.
REFUSALS = ("a private or local address", "allow-list", "is not valid", "cannot resolve")
INTERNAL_V4 = [
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "0.0.0.0/8",
    "100.64.0.0/10",
    "198.18.0.0/15",
]
INTERNAL_V6 = ["::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1"]
SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def internal_v4(draw: st.DrawFn) -> int:
    network = ipaddress.ip_network(draw(st.sampled_from(INTERNAL_V4)))
    offset = draw(st.integers(0, network.num_addresses - 1))
    return int(network.network_address) + offset


def _spellings(a: int) -> list[str]:
    """Every way a URL host may spell the IPv4 address `a` for the C resolver."""
    parts = [(a >> s) & 0xFF for s in (24, 16, 8, 0)]
    return [
        ".".join(map(str, parts)),
        str(a),  # one decimal number
        hex(a),  # one hex number
        ".".join(f"0{p:o}" for p in parts),  # octal parts
        ".".join(hex(p) for p in parts),  # hex parts
        f"{parts[0]}.{parts[1]}.{a & 0xFFFF}",  # three parts, the last 16 bits
        f"{parts[0]}.{a & 0xFFFFFF}",  # two parts, the last 24 bits
        f"[::ffff:{'.'.join(map(str, parts))}]",  # IPv4-mapped IPv6
        f"[::ffff:{a >> 16:x}:{a & 0xFFFF:x}]",  # the same in hex groups
        ".".join(map(str, parts)) + ".",  # a trailing dot
    ]


hosts = st.one_of(
    st.builds(lambda a, i: _spellings(a)[i], internal_v4(), st.integers(0, 9)),
    st.sampled_from([f"[{h}]" for h in INTERNAL_V6] + ["localhost", "0", "localhost."]),
)


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    with serving(server.server):
        yield server


async def _tenant(db: Any, name: str) -> str:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, f"{name}-{uuid.uuid4().hex[:10]}")
    return tenant.id


def _outbound(db: Any, tenant_id: str, policy: HttpPolicy, box: SecretBox | None) -> OutboundHttp:
    secrets = ScriptSecrets(db, box, tenant_id)
    return OutboundHttp(db, tenant_id, policy, secrets, "o:1", RunDeadline(5))


async def _ssrf(database_url: str, host: str, port: int) -> str:
    db = create_engine(database_url)
    try:
        tenant_id = await _tenant(db, "hostile")
        try:
            async with db.begin() as conn:
                await http_allowlist.put(conn, tenant_id, [f"http://{host}:{port}"], {"http"})
        except InvalidInput:
            pass  # a spelling the list refuses cannot be allowed: the request must fail too
        try:
            await _outbound(db, tenant_id, PUBLIC_ONLY, None).request(
                "GET", f"http://{host}:{port}/echo", {}, None
            )
        except ValueError as exc:
            return str(exc)
        return "answered"
    finally:
        await db.dispose()


@SETTINGS
@given(host=hosts)
@example(
    host="[::ffff:100.100.100.200]"
)  # a cloud's metadata address, IPv4-mapped: was let through
@example(host="0.0.0.0")  # connects to this machine
@example(host="[::]")
def test_no_spelling_of_an_internal_address_is_ever_connected_to(
    database_url: str, stand_in: StandIn, host: str
) -> None:
    refusal = uvloop.run(_ssrf(database_url, host, stand_in.port))
    assert any(reason in refusal for reason in REFUSALS), (host, refusal)
    assert stand_in.received == []


names = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)


async def _guess(
    database_url: str, origin: str, held: dict[str, str], own: dict[str, str], guess: str
) -> tuple[str | None, str]:
    """Tenant A holds `held`, B holds `own`; B reads `guess` and sends it as a header."""
    box = SecretBox(KeyRing((new_key(),)))
    db = create_engine(database_url)
    try:
        victim, hostile = await _tenant(db, "victim"), await _tenant(db, "hostile")
        now = datetime.now(UTC)
        async with db.begin() as conn:
            for tenant_id, secrets in ((victim, held), (hostile, own)):
                for name, value in secrets.items():
                    await tenant_secrets.put(conn, box, tenant_id, name, value, now)
            await http_allowlist.put(conn, hostile, [origin], {"http"})
        read = await ScriptSecrets(db, box, hostile).get(guess)
        outbound = _outbound(db, hostile, LOOPBACK_ALLOWED, box)
        header = {"Authorization": "Bearer {{secret:" + guess + "}}"}
        try:
            answer = await outbound.request("GET", f"{origin}/echo", header, None)
        except ValueError as exc:
            return read, str(exc)
        return read, json.dumps(answer)
    finally:
        await db.dispose()


values = st.text(
    st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=30
).filter(lambda v: v != "[secret]")


@SETTINGS
@given(
    held=st.dictionaries(names, values, min_size=1, max_size=4),
    own=st.dictionaries(names, values, max_size=2),
    pick=st.integers(0, 3),
)
def test_a_neighbours_secret_is_never_read_nor_sent_whatever_name_is_guessed(
    database_url: str, stand_in: StandIn, held: dict[str, str], own: dict[str, str], pick: int
) -> None:
    guess = sorted(held)[pick % len(held)]
    before = len(stand_in.received)
    read, answer = uvloop.run(_guess(database_url, stand_in.origin, held, own, guess))
    assert read == own.get(guess)
    sent = [headers.get("Authorization") for _, _, headers, _ in stand_in.received[before:]]
    if guess in own:
        assert sent == [f"Bearer {own[guess]}"]
    else:
        assert sent == [] and f"no secret {guess!r} for this tenant" in answer
    for value in set(held.values()) - set(own.values()):
        assert value not in answer and value not in json.dumps(sent)


@pytest.fixture
def product() -> Iterator[HostProduct]:
    host = HostProduct()
    with serving(host.server):
        yield host
        host.release.set()


async def _probe(
    database_url: str, registry: dict[str, Any], granted_to_victim: list[str], name: str
) -> str:
    """Tenant A was granted `granted_to_victim`, B nothing; B calls `name`; B's refusal."""
    policy = CapabilityPolicy(
        specs=specs_from_json(registry), signing_key=SIGNING_KEY, max_calls_per_minute=1000
    )
    db = create_engine(database_url)
    try:
        victim, hostile = await _tenant(db, "victim"), await _tenant(db, "hostile")
        async with db.begin() as conn:
            for granted in granted_to_victim:
                await capability_grants.grant(conn, victim, granted, datetime.now(UTC))
        context = ScriptContext(hostile, None, None, datetime.now(UTC), 1, {}, "o:1")
        calls = CapabilityCalls(db, CapabilityDesk(policy), context, RunDeadline(5), SystemClock())
        with pytest.raises(ValueError) as refused:
            await calls.call(name, {})
        return str(refused.value)
    finally:
        await db.dispose()


@SETTINGS
@given(data=st.data())
def test_a_neighbours_capability_is_never_called_and_answers_as_an_unknown_name(
    database_url: str, product: HostProduct, data: st.DataObject
) -> None:
    registry = product.registry()
    registered = sorted(c["name"] for c in registry["capabilities"])
    granted = data.draw(st.lists(st.sampled_from(registered), min_size=1, unique=True))
    name = data.draw(st.one_of(st.sampled_from(registered), names.map(lambda n: f"x.{n}")))
    refusal = uvloop.run(_probe(database_url, registry, granted, name))
    assert refusal == (
        f"capability {name!r} is not granted to this tenant: GET /v1/capabilities lists the "
        "ones its scripts may call"
    )
    assert product.received == []
