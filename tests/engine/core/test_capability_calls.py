"""`ctx.call(name, args)` against the stand-in product and the plugin's entry points: granted
names only (one answer for ungranted and unknown), arguments checked before they leave, quotas,
capped answers, signed requests with a stable idempotency key per occurrence and call index."""

from __future__ import annotations

import json

import pytest
from capability_trials import deps_of, grant, trial
from retried_occurrence import run_twice
from support.host_product import HostProduct, is_signed

from engine.capabilities.specs import CapabilityPolicy
from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService

MAIL = {"to": ["ada@example.com"], "subject": "Weekly report", "text": "42 orders"}


def _tries(*calls: tuple[str, object]) -> str:
    """A script that makes each call and returns, per call, the answer or the refusal."""
    return (
        "def main(ctx):\n    out = []\n"
        f"    for name, args in {list(calls)!r}:\n"
        "        try:\n"
        "            out.append(ctx.call(name, args))\n"
        "        except HostError as exc:\n"
        "            out.append(str(exc))\n"
        "    return out\n"
    )


@pytest.mark.parametrize("runtime", ["python", "micropython"])
async def test_a_granted_call_is_signed_keyed_and_answered(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy, runtime
) -> None:
    await grant(db, tenant_id, "mail.send", "crm.open_carts")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    code = _tries(("crm.open_carts", {"idle_h": 24}), ("mail.send", MAIL))
    found = await trial(deps, tenant_id, code, runtime)
    carts, sent = found.outcome.result
    assert [c["id"] for c in carts] == ["c1"] and sent["queued"] is True
    (first_headers, first), (second_headers, second) = host_product.received
    assert is_signed(first_headers, first) and is_signed(second_headers, second)
    bodies = host_product.calls()
    occurrence = bodies[0]["occurrence_id"]
    assert bodies[1] == {
        "tenant_id": tenant_id,
        "capability": "mail.send",
        "args": MAIL,
        "occurrence_id": occurrence,
        "attempt": 1,
        "call_index": 1,
    }
    keys = [first_headers["Idempotency-Key"], second_headers["Idempotency-Key"]]
    assert keys == [f"{occurrence}/call/0", f"{occurrence}/call/1"] and sent["id"] == keys[1]


async def test_ungranted_and_unknown_names_get_the_same_answer_and_nothing_leaves(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy
) -> None:
    async with db.begin() as conn:  # a neighbour holds the grant this tenant lacks
        from tenants.registry import create_tenant

        neighbour, _ = await create_tenant(conn, "neighbour")
    await grant(db, neighbour.id, "mail.send")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    names = ["mail.send", "no.such", "test.echo"]
    found = await trial(deps, tenant_id, _tries(*((name, MAIL) for name in names)))
    answers = [
        answer.replace(repr(name), "NAME")
        for answer, name in zip(found.outcome.result, names, strict=True)
    ]
    assert len(set(answers)) == 1 and "not granted to this tenant" in answers[0]
    assert host_product.received == []


@pytest.mark.parametrize(
    "args, path",
    [
        ({"to": ["not an address"], "subject": "s", "text": "t"}, "$.to[0]"),
        ({"to": [], "subject": "s" * 201, "text": "t"}, "$.subject"),
        ({"to": [], "subject": "s", "text": "t", "bcc": "x@y"}, "$"),
        ({"to": [], "subject": "s"}, "$"),
        (["a list"], "$"),
        (None, "$"),
    ],
    ids=["bad-address", "subject-too-long", "unknown-field", "missing-field", "list", "none"],
)
async def test_arguments_off_the_schema_never_leave_and_the_error_names_the_path(
    db, every_runtime, secret_box, clock, tenant_id, host_product, policy, args, path
) -> None:
    await grant(db, tenant_id, "mail.send")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    (answer,) = (await trial(deps, tenant_id, _tries(("mail.send", args)))).outcome.result
    assert f"do not match its schema at {path}:" in answer
    assert host_product.received == []


async def test_quotas_per_run_and_per_tenant_minute_hold(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy
) -> None:
    await grant(db, tenant_id, "crm.open_carts")
    deps = deps_of(
        db, every_runtime, secret_box, clock, policy, max_calls_per_run=3, max_calls_per_minute=5
    )
    calls = [("crm.open_carts", {})] * 4
    first = (await trial(deps, tenant_id, _tries(*calls))).outcome.result
    second = (await trial(deps, tenant_id, _tries(*calls))).outcome.result
    assert all(isinstance(a, list) for a in first[:3])
    assert "more than 3 capability calls in one run" in first[3]
    assert all(isinstance(a, list) for a in second[:2])
    assert "made 5 capability calls in this minute" in second[2]
    assert len(host_product.received) == 5


async def test_huge_answers_and_failures_of_the_product_are_clear_errors(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy
) -> None:
    await grant(db, tenant_id, "test.huge", "test.broken")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    found = await trial(deps, tenant_id, _tries(("test.huge", 1), ("test.broken", 2)))
    huge, broken = found.outcome.result
    assert "'test.huge' failed: the answer body is larger than 4096 bytes" in huge
    assert broken.endswith("failed: the host product answered HTTP 503: the mail relay is down")


async def test_entry_points_run_in_process_with_the_same_request(
    db, every_runtime, secret_box, clock, tenant_id, host_product, policy
) -> None:
    await grant(db, tenant_id, "test.echo", "test.explode", "test.refuse")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    code = _tries(("test.echo", {"a": [1, 2]}), ("test.explode", 0), ("test.refuse", 0))
    echo, exploded, refused = (await trial(deps, tenant_id, code)).outcome.result
    assert echo["args"] == {"a": [1, 2]} and echo["tenant_id"] == tenant_id
    assert echo["idempotency_key"] == f"{echo['occurrence_id']}/call/0"
    assert exploded == "capability 'test.explode' failed: the capability failed (RuntimeError)"
    assert refused == "capability 'test.refuse' failed: this shop has no such customer"


WAT = """
(module
  (import "cadenza" "call" (func $call (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "result" (func $result (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "@REQUEST@")
  (func (export "main")
    (local $n i32)
    (local.set $n (call $call (i32.const 0) (i32.const @LENGTH@) (i32.const 1024) (i32.const 4096)))
    (drop (call $result (i32.const 1024) (local.get $n)))))
"""


async def test_a_wasm_module_calls_a_capability_through_the_abi(
    db, every_runtime, secret_box, clock, tenant_id, host_product: HostProduct, policy
) -> None:
    await grant(db, tenant_id, "crm.open_carts")
    deps = deps_of(db, every_runtime, secret_box, clock, policy)
    request = json.dumps({"name": "crm.open_carts", "args": {"idle_h": 1}})
    wat = WAT.replace("@REQUEST@", request.replace('"', '\\"'))
    wat = wat.replace("@LENGTH@", str(len(request)))
    found = await trial(deps, tenant_id, wat, "wasm")
    assert [c["id"] for c in found.outcome.result] == ["c1", "c2"]
    assert host_product.calls()[0]["args"] == {"idle_h": 1}


@pytest.fixture
def engine_config(policy: CapabilityPolicy) -> EngineConfig:
    return EngineConfig(
        node_name="test-node", max_concurrency=2, wake_cap_s=0.2, capabilities=policy
    )


async def test_a_retried_occurrence_presents_the_same_keys_and_its_calls_are_recorded(
    service: EngineService, db, tenant_id, clock: ManualClock, host_product: HostProduct
) -> None:
    await grant(db, tenant_id, "mail.send", "crm.open_carts")
    calls = f"    ctx.call('crm.open_carts', {{}})\n    ctx.call('mail.send', {MAIL!r})\n"
    done = await run_twice(service, tenant_id, clock, calls)
    keys = [headers["Idempotency-Key"] for headers, _ in host_product.received]
    assert len(keys) == 4 and keys[:2] == keys[2:] and keys[0] != keys[1]
    assert [b["attempt"] for b in host_product.calls()] == [1, 1, 2, 2]
    assert len(host_product.mail) == 1  # the product performed the effect once per key
    for run in done:
        assert run.calls is not None
        assert [(c.kind, c.method, c.host, c.status) for c in run.calls] == [
            ("capability", "CALL", "crm.open_carts", 200),
            ("capability", "CALL", "mail.send", 200),
        ]
        assert run.calls[1].bytes_sent == len(json.dumps(MAIL, separators=(",", ":")))
        assert "ada@example.com" not in json.dumps([c.__dict__ for c in run.calls])
