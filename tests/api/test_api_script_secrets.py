"""Script secrets through the real server: write-only over HTTP, readable by the tenant's own
scripts only, and never in anything a run leaves behind (run, events, kv, a test run's answer,
the raw database), wherever the script put the value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import make_url

VALUE = "sk_live_7Hq2Lp9Zx4Wm"
#: Where a script may put a secret it read (python), `s` holding it.
PLACES = {
    "print": "print('seen', s)",
    "repr": "print(repr([s]))",
    "log": "ctx.log('token', s)",
    "result": "return {'k': s, s: [s]}",
    "error": "raise ValueError('bad ' + s)",
    "event": "ctx.emit('leak', {'v': [s, {'in': s}]})",
    "event type": "ctx.emit(s[:60], {})",
    "kv value": "ctx.kv.set('k', {'v': s})",
    "kv key": "ctx.kv.set('k/' + s[:200], 1)",
    "cut output": "print('x' * (65536 - 6) + s)",
}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def assert_absent(secret: str, response_text: str) -> None:
    """Neither the raw text nor any string of its JSON holds the secret."""
    assert secret not in response_text
    for text in _strings(json.loads(response_text)):
        assert secret not in text


def _script(place: str) -> str:
    return f"def main(ctx):\n    s = ctx.secrets.get('token')\n    {PLACES[place]}\n    return 1\n"


def test_secrets_are_write_only_and_admin_only(new_tenant, problem) -> None:
    t = new_tenant()
    put = t.admin.put("/v1/secrets/stripe", json={"value": VALUE})
    assert put.status_code == 200, put.text
    assert set(put.json()) == {"name", "updated_at"} and put.json()["name"] == "stripe"
    listed = t.viewer.get("/v1/secrets")
    assert [s["name"] for s in listed.json()] == ["stripe"]
    for answer in (put, listed, t.admin.get("/v1/secrets/stripe")):
        assert VALUE not in answer.text
    assert t.admin.get("/v1/secrets/stripe").status_code == 405
    problem(t.editor.put("/v1/secrets/stripe", json={"value": "x" * 12}), 403)
    problem(t.viewer.delete("/v1/secrets/stripe"), 403)
    problem(t.admin.put("/v1/secrets/no%20space", json={"value": VALUE}), 422)
    problem(t.admin.put("/v1/secrets/short", json={"value": "1234567"}), 422)
    problem(t.admin.put("/v1/secrets/extra", json={"value": VALUE, "hint": "x"}), 422)
    problem(t.admin.delete("/v1/secrets/absent"), 404, "not-found")
    assert [s["name"] for s in t.viewer.get("/v1/secrets").json()] == ["stripe"]
    assert t.admin.delete("/v1/secrets/stripe").status_code == 204
    assert t.viewer.get("/v1/secrets").json() == []


def test_a_script_reads_only_its_own_tenants_secrets(new_tenant) -> None:
    owner, other = new_tenant(), new_tenant()
    assert owner.admin.put("/v1/secrets/token", json={"value": VALUE}).status_code == 200
    code = "def main(ctx):\n    s = ctx.secrets.get('token')\n    return [s, len(s or '')]\n"
    mine = owner.editor.post("/v1/rules/test-run", json={"code": code}).json()
    assert mine["status"] == "ok" and mine["result"] == ["[secret]", len(VALUE)]
    theirs = other.editor.post("/v1/rules/test-run", json={"code": code}).json()
    assert theirs["status"] == "ok" and theirs["result"] == [None, 0]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # With a letter: a secret of digits alone can turn up inside a float of the answer
    # (its CPU seconds) without having leaked from anywhere.
    secret=st.text(
        st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=8, max_size=40
    ).filter(lambda v: v != "[secret]" and any(c.isalpha() for c in v)),
    place=st.sampled_from(sorted(PLACES)),
)
def test_a_test_run_answer_holds_no_secret_wherever_the_script_put_it(
    new_tenant, secret: str, place: str
) -> None:
    t = _tenant(new_tenant)
    assert t.admin.put("/v1/secrets/token", json={"value": secret}).status_code == 200
    answer = t.editor.post("/v1/rules/test-run", json={"code": _script(place)})
    assert answer.status_code == 200
    assert answer.json()["status"] in ("ok", "error", "output_limit"), answer.json()["error"]
    assert_absent(secret, answer.text)


_TENANTS: dict[int, Any] = {}


def _tenant(new_tenant: Any) -> Any:
    """One tenant per test function call (hypothesis reruns the body, not the fixture)."""
    key = id(new_tenant)
    if key not in _TENANTS:
        _TENANTS.clear()
        _TENANTS[key] = new_tenant()
    return _TENANTS[key]


@pytest.mark.parametrize("runtime", ["python", "micropython"])
def test_runs_events_kv_and_the_database_hold_no_secret(
    new_tenant, wait_for, server, request, runtime: str
) -> None:
    t = new_tenant()
    assert t.admin.put("/v1/secrets/token", json={"value": VALUE}).status_code == 200
    spread = "; ".join(
        PLACES[p] for p in ("print", "repr", "log", "event", "event type", "kv value", "kv key")
    )
    scripts = {
        "spread": _script("print").replace(PLACES["print"], spread).replace("1\n", "[s]\n"),
        "raising": _script("error"),
    }
    for name, code in scripts.items():
        body = {"name": name, "schedule": "FREQ=DAILY;BYHOUR=9", "code": code}
        rule = t.editor.post("/v1/rules", json=body | {"runtime": runtime, "max_attempts": 1})
        assert rule.status_code == 201, rule.text
        assert t.editor.post(f"/v1/rules/{rule.json()['id']}/trigger").status_code == 201
    runs = wait_for(lambda: (r := t.viewer.get("/v1/runs").json()["items"]) and len(r) == 2 and r)
    assert sorted(r["outcome"] for r in runs) == ["error", "ok"]
    answers = [t.viewer.get(f"/v1/runs/{r['id']}") for r in runs]
    answers += [t.viewer.get("/v1/events"), t.viewer.get("/v1/kv"), t.viewer.get("/v1/runs")]
    for answer in answers:
        assert answer.status_code == 200
        assert_absent(VALUE, answer.text)
    assert "[secret]" in answers[0].text + answers[1].text
    kv_keys = [item["key"] for item in t.viewer.get("/v1/kv").json()["items"]]
    assert sorted(kv_keys) == ["k", "k/[secret]"]
    assert VALUE.encode() not in _raw_database(server, request)


def _raw_database(server: Any, request: pytest.FixtureRequest) -> bytes:
    url = make_url(server.database_url)
    if url.get_backend_name() == "sqlite":
        path = Path(url.database or "")
        files = [path, path.with_name(path.name + "-wal")]
        return b"".join(p.read_bytes() for p in files if p.exists())
    return request.getfixturevalue("pg_cluster").dump(url.database).encode()
