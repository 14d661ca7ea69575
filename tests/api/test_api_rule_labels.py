"""Labels on rules and the filters of the rule and run lists, through real HTTP."""

from __future__ import annotations

import pytest
from support.labelled_rules import DAILY, make_rule

FAILS = "def main(ctx):\n    raise ValueError('no')\n"


def _make(tenant, name: str, **fields: object) -> dict:
    return make_rule(tenant.editor, name, **fields)


def _names(tenant, **params: object) -> list[str]:
    answer = tenant.viewer.get("/v1/rules", params=params)
    assert answer.status_code == 200, answer.text
    return sorted(rule["name"] for rule in answer.json()["items"])


def test_labels_are_saved_read_and_replaced_by_an_edit(new_tenant) -> None:
    tenant = new_tenant()
    rule = _make(tenant, "a", labels={"team": "ops", "case": "123"})
    assert rule["labels"] == {"team": "ops", "case": "123"}
    edited = tenant.editor.patch(f"/v1/rules/{rule['id']}", json={"labels": {"team": "dev"}})
    assert edited.status_code == 200 and edited.json()["labels"] == {"team": "dev"}
    assert tenant.viewer.get(f"/v1/rules/{rule['id']}").json()["labels"] == {"team": "dev"}


@pytest.mark.parametrize(
    ("labels", "field"),
    [
        ({"Team": "ops"}, "labels"),  # upper-case key
        ({"team": "has space"}, "labels.team"),  # space in a value
        ({"team": "a=b"}, "labels.team"),  # `=` would break a selector
        ({"": "x"}, "labels"),  # empty key
        ({"k": "v" * 64}, "labels.k"),  # value too long
        ({f"k{n}": "v" for n in range(21)}, "labels"),  # too many
        ({"team": 5}, "labels.team"),  # not a string
    ],
    ids=["upper-key", "space", "equals", "empty-key", "long-value", "too-many", "number"],
)
def test_bad_labels_answer_422_naming_the_field_and_save_nothing(
    new_tenant, problem, labels: dict, field: str
) -> None:
    tenant = new_tenant()
    body = problem(
        tenant.editor.post("/v1/rules", json=DAILY | {"name": "x", "labels": labels}), 422
    )
    assert body["errors"][0]["field"].startswith(field), body
    assert tenant.viewer.get("/v1/rules").json()["items"] == []


def test_rules_filter_by_labels_anded_state_and_runtime(new_tenant) -> None:
    tenant = new_tenant()
    _make(tenant, "ops-prod", labels={"team": "ops", "env": "prod"})
    _make(tenant, "ops-dev", labels={"team": "ops", "env": "dev"}, enabled=False)
    _make(tenant, "dev", labels={"team": "dev"})
    _make(tenant, "bare")
    assert _names(tenant, label="team=ops") == ["ops-dev", "ops-prod"]
    assert _names(tenant, label=["team=ops", "env=prod"]) == ["ops-prod"]
    assert _names(tenant, label="env") == ["ops-dev", "ops-prod"]
    assert _names(tenant, label="team=nobody") == []
    assert _names(tenant, state="paused") == ["ops-dev"]
    assert _names(tenant, state="active", label="team=ops") == ["ops-prod"]
    assert _names(tenant, enabled="false") == ["ops-dev"]
    assert _names(tenant, runtime="python") == ["bare", "dev", "ops-dev", "ops-prod"]
    assert _names(tenant, runtime="wasm") == []


def test_rules_filter_by_last_outcome_and_runs_by_rule_label(new_tenant, wait_for) -> None:
    tenant = new_tenant()
    good = _make(tenant, "good", labels={"team": "ops"})
    bad = _make(tenant, "bad", code=FAILS, labels={"team": "dev"}, max_attempts=1)
    for rule in (good, bad):
        assert tenant.editor.post(f"/v1/rules/{rule['id']}/trigger").status_code == 201
    wait_for(lambda: len(tenant.viewer.get("/v1/runs").json()["items"]) == 2)
    assert _names(tenant, last_outcome="ok") == ["good"]
    assert _names(tenant, last_outcome="error") == ["bad"]
    assert _names(tenant, last_outcome="timeout") == []
    runs = tenant.viewer.get("/v1/runs", params={"rule_label": "team=dev"}).json()["items"]
    assert [run["rule_id"] for run in runs] == [bad["id"]]
    both = tenant.viewer.get("/v1/runs", params={"rule_label": "team", "status": "ok"})
    assert [run["rule_id"] for run in both.json()["items"]] == [good["id"]]


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/v1/rules", {"label": "Team=ops"}, "label"),
        ("/v1/rules", {"label": "team=a b"}, "label"),
        ("/v1/rules", {"label": [f"k{n}" for n in range(11)]}, "label"),
        ("/v1/rules", {"state": "sleeping"}, "state"),
        ("/v1/rules", {"last_outcome": "great"}, "last_outcome"),
        ("/v1/rules", {"state": "active", "enabled": "false"}, "enabled"),
        ("/v1/runs", {"rule_label": "=x"}, "rule_label"),
    ],
)
def test_bad_filters_answer_422_naming_the_parameter(
    new_tenant, problem, path: str, params: dict, field: str
) -> None:
    body = problem(new_tenant().viewer.get(path, params=params), 422)
    assert body["errors"][0]["field"].split(".")[0] == field, body


def test_filters_page_with_the_cursor(new_tenant) -> None:
    tenant = new_tenant()
    for n in range(5):
        _make(tenant, f"r{n}", labels={"page": "yes" if n % 2 == 0 else "no"})
    seen: list[str] = []
    params: dict[str, object] = {"label": "page=yes", "limit": 2}
    while True:
        page = tenant.viewer.get("/v1/rules", params=params).json()
        seen += [rule["name"] for rule in page["items"]]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
    assert sorted(seen) == ["r0", "r2", "r4"]
