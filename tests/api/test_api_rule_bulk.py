"""Bulk pause / resume / delete by filter: a dry run counts, the real call changes exactly that
set in one transaction (all or nothing), and the same call again changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from support.labelled_rules import make_rule


def _make(tenant, name: str, **fields: object) -> dict:
    return make_rule(tenant.editor, name, **fields)


def _bulk(tenant, operation: str, params: dict, *, dry_run: bool = False):
    body = {"operation": operation, "dry_run": dry_run}
    return tenant.editor.post("/v1/rules/bulk", params=params, json=body)


def _rules(tenant) -> dict[str, dict]:
    return {r["id"]: r for r in tenant.viewer.get("/v1/rules").json()["items"]}


def _pending(tenant, rule_id: str) -> int:
    params = {"rule_id": rule_id, "status": "pending"}
    return len(tenant.viewer.get("/v1/actions", params=params).json()["items"])


def test_dry_run_counts_the_listed_set_and_changes_nothing(new_tenant) -> None:
    tenant = new_tenant()
    ops = [_make(tenant, f"ops{n}", labels={"team": "ops"})["id"] for n in range(3)]
    _make(tenant, "dev", labels={"team": "dev"})
    before = _rules(tenant)
    answer = _bulk(tenant, "pause", {"label": "team=ops"}, dry_run=True)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "operation": "pause", "dry_run": True, "count": 3, "ids": sorted(ops)
    }  # fmt: skip
    listed = tenant.viewer.get("/v1/rules", params={"label": "team=ops"}).json()["items"]
    assert sorted(r["id"] for r in listed) == answer.json()["ids"]
    assert _rules(tenant) == before


def test_pause_then_resume_change_exactly_the_set_and_repeat_as_nothing(new_tenant) -> None:
    tenant = new_tenant()
    ops = sorted(_make(tenant, f"ops{n}", labels={"team": "ops"})["id"] for n in range(3))
    dev = _make(tenant, "dev", labels={"team": "dev"})
    paused = _bulk(tenant, "pause", {"label": "team=ops"}).json()
    assert (paused["count"], paused["ids"], paused["dry_run"]) == (3, ops, False)
    rules = _rules(tenant)
    assert all(not rules[i]["enabled"] and _pending(tenant, i) == 0 for i in ops)
    assert rules[dev["id"]]["enabled"] and rules[dev["id"]]["version"] == dev["version"]
    assert _pending(tenant, dev["id"]) == 1
    again = _bulk(tenant, "pause", {"label": "team=ops"}).json()
    assert (again["count"], again["ids"]) == (0, [])
    assert _rules(tenant) == rules
    resumed = _bulk(tenant, "resume", {"state": "paused"}).json()
    assert (resumed["count"], resumed["ids"]) == (3, ops)
    assert all(_pending(tenant, i) == 1 for i in ops)


def test_delete_removes_the_set_and_keeps_the_rest(new_tenant) -> None:
    tenant = new_tenant()
    doomed = sorted(_make(tenant, f"old{n}", labels={"gen": "1"})["id"] for n in range(2))
    kept = _make(tenant, "new", labels={"gen": "2"})
    assert _bulk(tenant, "delete", {"label": "gen=1"}, dry_run=True).json()["count"] == 2
    deleted = _bulk(tenant, "delete", {"label": "gen=1"}).json()
    assert (deleted["count"], deleted["ids"]) == (2, doomed)
    assert list(_rules(tenant)) == [kept["id"]]
    assert all(tenant.viewer.get(f"/v1/rules/{i}").status_code == 404 for i in doomed)
    assert _bulk(tenant, "delete", {"label": "gen=1"}).json()["count"] == 0


def test_a_rule_that_cannot_resume_fails_the_whole_call_and_nothing_changes(
    new_tenant, problem, wait_for
) -> None:
    tenant = new_tenant()
    once_at = (datetime.now(UTC) + timedelta(seconds=3)).replace(microsecond=0)
    fine = _make(tenant, "fine", enabled=False, labels={"team": "ops"})
    schedule = once_at.isoformat().replace("+00:00", "Z")
    ended = _make(tenant, "ended", enabled=False, labels={"team": "ops"}, schedule=schedule)
    wait_for(lambda: datetime.now(UTC) > once_at + timedelta(seconds=1))
    body = problem(_bulk(tenant, "resume", {"label": "team=ops"}), 422)
    assert body["errors"][0]["field"] == f"rules.{ended['id']}.schedule", body
    assert ended["id"] in body["detail"] and "nothing was changed" in body["detail"]
    rules = _rules(tenant)
    assert not rules[fine["id"]]["enabled"] and rules[fine["id"]]["version"] == fine["version"]
    assert _pending(tenant, fine["id"]) == 0


def test_bad_bulk_requests_answer_422_and_change_nothing(new_tenant, problem) -> None:
    tenant = new_tenant()
    rule = _make(tenant, "r", labels={"team": "ops"})
    cases = [
        ({"label": "team=ops"}, {"operation": "explode"}, "operation"),
        ({"label": "team=ops"}, {"operation": "pause", "dry_run": "yes"}, "dry_run"),
        ({"label": "BAD"}, {"operation": "delete"}, "label"),
        ({"label": "team=ops"}, {"operation": "delete", "extra": 1}, "extra"),
    ]
    for params, body, field in cases:
        answer = problem(tenant.editor.post("/v1/rules/bulk", params=params, json=body), 422)
        assert answer["errors"][0]["field"].split(".")[0] == field, answer
    assert _rules(tenant)[rule["id"]]["version"] == rule["version"]
    problem(tenant.viewer.post("/v1/rules/bulk", json={"operation": "delete"}), 403)
    assert rule["id"] in _rules(tenant)


def test_bulk_never_reaches_another_tenant(new_tenant) -> None:
    mine, theirs = new_tenant(), new_tenant()
    kept = _make(theirs, "theirs", labels={"team": "ops"})
    _make(mine, "mine", labels={"team": "ops"})
    for operation in ("pause", "delete"):
        answer = _bulk(mine, operation, {}).json()
        assert kept["id"] not in answer["ids"]
    assert mine.viewer.get("/v1/rules").json()["items"] == []
    rule = theirs.viewer.get(f"/v1/rules/{kept['id']}").json()
    assert rule["enabled"] and rule["version"] == kept["version"]
