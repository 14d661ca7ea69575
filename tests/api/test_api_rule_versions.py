"""A rule's version history through real HTTP: every save is a version, diffs are field-level,
a rollback is a new version equal to an old one that honours If-Match and re-plans once."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.audit import RULE

SCHEDULES = ["FREQ=DAILY;BYHOUR=9", "FREQ=HOURLY", "every 2h", "0 7 * * 1-5"]


def versions(client: httpx.Client, rule_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 2}
    while True:
        page = client.get(f"/v1/rules/{rule_id}/versions", params=params)
        assert page.status_code == 200, page.text
        found += page.json()["items"]
        if not page.json()["next_cursor"]:
            return found
        params["cursor"] = page.json()["next_cursor"]


def definition_of(rule: dict[str, Any]) -> dict[str, Any]:
    """The fields of a rule that a version's definition holds."""
    computed = {"id", "version", "created_at", "updated_at", "next_run_at", "schedule_text"}
    return {k: v for k, v in rule.items() if k not in computed | {"last_outcome"}}


def test_every_save_is_a_version_with_its_full_definition(new_tenant):
    tenant = new_tenant()
    rule = tenant.editor.post("/v1/rules", json=RULE).json()
    rid = rule["id"]
    tenant.editor.patch(f"/v1/rules/{rid}", json={"schedule": "FREQ=HOURLY", "priority": 5})
    tenant.editor.post(f"/v1/rules/{rid}/pause")
    resumed = tenant.editor.post(f"/v1/rules/{rid}/resume").json()

    found = versions(tenant.viewer, rid)

    assert [v["version"] for v in found] == [1, 2, 3, 4]
    assert [v["definition"]["enabled"] for v in found] == [True, True, False, True]
    assert found[0]["definition"] == definition_of(rule)
    assert found[-1]["definition"] == definition_of(resumed)
    one = tenant.viewer.get(f"/v1/rules/{rid}/versions/2")
    assert one.status_code == 200 and one.json() == found[1]


def test_diff_names_only_the_fields_that_changed(new_tenant):
    tenant = new_tenant()
    rid = tenant.editor.post("/v1/rules", json=RULE).json()["id"]
    tenant.editor.patch(f"/v1/rules/{rid}", json={"schedule": "FREQ=HOURLY", "priority": 5})
    tenant.editor.post(f"/v1/rules/{rid}/pause")

    previous = tenant.viewer.get(f"/v1/rules/{rid}/versions/2/diff").json()
    wide = tenant.viewer.get(f"/v1/rules/{rid}/versions/3/diff", params={"against": 1}).json()

    assert (previous["from_version"], previous["to_version"]) == (1, 2)
    assert previous["changes"] == [
        {"field": "schedule", "before": RULE["schedule"], "after": "FREQ=HOURLY"},
        {"field": "priority", "before": 0, "after": 5},
    ]
    assert [c["field"] for c in wide["changes"]] == ["schedule", "enabled", "priority"]


def test_rollback_is_a_new_version_equal_to_the_old_one_and_honours_if_match(new_tenant, problem):
    tenant = new_tenant()
    rid = tenant.editor.post("/v1/rules", json=RULE).json()["id"]
    tenant.editor.patch(f"/v1/rules/{rid}", json={"schedule": "FREQ=HOURLY", "name": "second"})

    stale = tenant.editor.post(
        f"/v1/rules/{rid}/rollback", json={"version": 1}, headers={"If-Match": '"1"'}
    )
    problem(stale, 412)
    assert len(versions(tenant.viewer, rid)) == 2
    rolled = tenant.editor.post(
        f"/v1/rules/{rid}/rollback", json={"version": 1}, headers={"If-Match": '"2"'}
    )

    assert rolled.status_code == 200, rolled.text
    assert rolled.headers["ETag"] == '"3"' and rolled.json()["version"] == 3
    history = versions(tenant.viewer, rid)
    assert history[2]["definition"] == history[0]["definition"]
    assert definition_of(rolled.json()) == history[0]["definition"]


def test_rollback_replans_once_cancelling_the_current_versions_pending_action(new_tenant):
    tenant = new_tenant()
    rid = tenant.editor.post("/v1/rules", json=RULE).json()["id"]
    tenant.editor.patch(f"/v1/rules/{rid}", json={"schedule": "FREQ=HOURLY"})
    tenant.editor.post(f"/v1/rules/{rid}/rollback", json={"version": 1})

    queue = tenant.viewer.get("/v1/actions", params={"rule_id": rid, "limit": 200}).json()["items"]

    pending = [a for a in queue if a["status"] == "pending"]
    assert len(pending) == 1 and pending[0]["rule_version"] == 3
    assert {a["status"] for a in queue if a["rule_version"] < 3} <= {"cancelled"}
    assert len({a["scheduled_at"] for a in queue if a["status"] == "pending"}) == 1


def test_bad_versions_and_roles_are_refused_and_change_nothing(new_tenant, problem):
    tenant = new_tenant()
    rid = tenant.editor.post("/v1/rules", json=RULE).json()["id"]
    problem(tenant.viewer.get(f"/v1/rules/{rid}/versions/9"), 404, "not-found")
    problem(tenant.viewer.get(f"/v1/rules/{rid}/versions/0"), 422)
    problem(tenant.viewer.get(f"/v1/rules/{rid}/versions/2/diff", params={"against": 1}), 404)
    problem(tenant.editor.post(f"/v1/rules/{rid}/rollback", json={"version": 7}), 404)
    body = problem(tenant.editor.post(f"/v1/rules/{rid}/rollback", json={"version": "1"}), 422)
    assert "version" in str(body)
    problem(tenant.viewer.post(f"/v1/rules/{rid}/rollback", json={"version": 1}), 403)
    problem(tenant.viewer.get("/v1/rules/r_nosuch/versions"), 404)
    assert len(versions(tenant.viewer, rid)) == 1


CHANGES = st.one_of(
    st.builds(lambda s: ("PATCH", {"schedule": s}), st.sampled_from(SCHEDULES)),
    st.builds(lambda p: ("PATCH", {"priority": p}), st.integers(-1000, 1000)),
    st.builds(lambda n: ("PATCH", {"name": f"r {n}"}), st.text("abcxyz ", max_size=12)),
    st.just(("pause", None)),
    st.just(("resume", None)),
    st.builds(lambda n: ("rollback", n), st.integers(1, 8)),
)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(CHANGES, min_size=1, max_size=6))
def test_each_version_is_the_rule_as_that_change_left_it(new_tenant, steps):
    tenant = new_tenant()
    rule = tenant.editor.post("/v1/rules", json=RULE).json()
    seen = {1: definition_of(rule)}
    for kind, arg in steps:
        if kind == "PATCH":
            answer = tenant.editor.patch(f"/v1/rules/{rule['id']}", json=arg)
        elif kind == "rollback":
            answer = tenant.editor.post(f"/v1/rules/{rule['id']}/rollback", json={"version": arg})
        else:
            answer = tenant.editor.post(f"/v1/rules/{rule['id']}/{kind}")
        assert answer.status_code in (200, 404), answer.text
        if answer.status_code == 200:
            now = answer.json()
            seen[now["version"]] = definition_of(now)
            if kind == "rollback":
                assert definition_of(now) == seen[arg]
    history = versions(tenant.viewer, rule["id"])
    assert {v["version"]: v["definition"] for v in history} == seen
