"""Calendars through a real server: CRUD, bad input, rules naming them, the preview and the
timeline saying what a calendar skipped, and a calendar edit re-planning the rules that use it.

The server's clock is the real one, so dates are chosen relative to today (a year ahead keeps
them clear of the time the test itself takes).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.audit import audit_rows

SCRIPT = "def main(ctx):\n    pass\n"
BERLIN = ZoneInfo("Europe/Berlin")
DAILY_9 = "FREQ=DAILY;BYHOUR=9;BYMINUTE=0"


def _rule(calendars: list[str], schedule: str = DAILY_9) -> dict:
    return {
        "name": "reminder", "schedule": schedule, "code": SCRIPT, "timezone": "Europe/Berlin",
        "calendars": calendars,
    }  # fmt: skip


def _local_date(instant: str) -> date:
    return datetime.fromisoformat(instant).astimezone(BERLIN).date()


def _next_9am_date() -> date:
    """The Berlin date of the next 09:00 after now, a minute of margin for the request."""
    now = datetime.now(BERLIN) + timedelta(minutes=1)
    return now.date() if now.hour < 9 else now.date() + timedelta(days=1)


def test_put_get_list_delete_round_trip(new_tenant, problem) -> None:
    t = new_tenant()
    created = t.editor.put("/v1/calendars/Holidays DE", json={"excluded": ["2027-01-01"]})
    assert created.status_code == 201, created.text
    assert created.json()["version"] == 1 and created.json()["rules"] == []
    replaced = t.editor.put(
        "/v1/calendars/Holidays DE",
        json={"excluded": ["2027-12-25", "2027-01-01", "2027-12-25"], "description": "DE"},
    )
    assert replaced.status_code == 200, replaced.text
    body = replaced.json()
    assert body["excluded"] == ["2027-01-01", "2027-12-25"] and body["version"] == 2
    assert t.viewer.get("/v1/calendars/Holidays DE").json() == body
    for name in ("b", "c", "a"):
        assert t.editor.put(f"/v1/calendars/{name}", json={}).status_code == 201
    first = t.viewer.get("/v1/calendars", params={"limit": 2}).json()
    rest = t.viewer.get("/v1/calendars", params={"cursor": first["next_cursor"]}).json()
    names = [c["name"] for c in first["items"] + rest["items"]]
    assert names == ["Holidays DE", "a", "b", "c"] and rest["next_cursor"] is None
    assert t.editor.delete("/v1/calendars/a").status_code == 204
    problem(t.viewer.get("/v1/calendars/a"), 404, "not-found")
    problem(t.editor.delete("/v1/calendars/a"), 404, "not-found")


def test_bad_calendars_are_refused_naming_the_field_and_change_nothing(new_tenant, problem) -> None:
    t = new_tenant()
    assert t.editor.put("/v1/calendars/cal", json={"excluded": ["2027-01-01"]}).status_code == 201
    cases = [
        ("/v1/calendars/cal", {"excluded": ["2027-02-30"]}, "excluded"),
        ("/v1/calendars/cal", {"excluded": ["1 Jan 2027"]}, "excluded"),
        ("/v1/calendars/cal", {"included": ["2027-01-01"] * 1001}, "included"),
        ("/v1/calendars/cal", {"excluded": "2027-01-01"}, "excluded"),
        ("/v1/calendars/cal", {"exclude": ["2027-01-01"]}, "exclude"),
        ("/v1/calendars/-bad", {}, "name"),
        ("/v1/calendars/" + "x" * 101, {}, "name"),
    ]
    for path, body, field in cases:
        answer = problem(t.editor.put(path, json=body), 422)
        assert any(field in e["field"] for e in answer["errors"]), (body, answer)
    assert t.viewer.get("/v1/calendars/cal").json()["excluded"] == ["2027-01-01"]
    assert [c["name"] for c in t.viewer.get("/v1/calendars").json()["items"]] == ["cal"]


def test_rule_naming_an_unknown_or_another_tenants_calendar_is_refused(new_tenant, problem) -> None:
    a, b = new_tenant(), new_tenant()
    assert b.editor.put("/v1/calendars/theirs", json={}).status_code == 201
    for names in (["nope"], ["theirs"]):
        answer = problem(a.editor.post("/v1/rules", json=_rule(names)), 422, "invalid-rule")
        assert answer["errors"][0]["field"] == "calendars" and names[0] in answer["detail"]
    problem(a.viewer.post("/v1/preview", json={"schedule": DAILY_9, "calendars": ["theirs"]}), 422)
    assert a.viewer.get("/v1/rules").json()["items"] == []
    assert t_names(b) == ["theirs"]


def t_names(t) -> list[str]:
    return [c["name"] for c in t.viewer.get("/v1/calendars").json()["items"]]


def test_rule_skips_excluded_date_and_preview_says_so(new_tenant) -> None:
    t = new_tenant()
    holiday = _next_9am_date()
    excluded = {"excluded": [holiday.isoformat()]}
    assert t.editor.put("/v1/calendars/Holidays DE", json=excluded).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["Holidays DE"]))
    assert rule.status_code == 201, rule.text
    assert _local_date(rule.json()["next_run_at"]) == holiday + timedelta(days=1)
    assert rule.json()["schedule_text"].endswith("except dates in calendar 'Holidays DE'")
    body = {"schedule": DAILY_9, "timezone": "Europe/Berlin", "calendars": ["Holidays DE"]}
    preview = t.viewer.post("/v1/preview", json=body).json()
    assert preview["occurrences"][0] == rule.json()["next_run_at"].replace("Z", "+00:00") or (
        datetime.fromisoformat(preview["occurrences"][0])
        == datetime.fromisoformat(rule.json()["next_run_at"])
    )
    assert [_local_date(s["at"]) for s in preview["skipped"]] == [holiday]
    assert preview["skipped"][0]["note"] == "skipped: holiday (calendar 'Holidays DE')"
    start = datetime.combine(holiday, datetime.min.time(), BERLIN)
    window = {"from": start.isoformat(), "to": (start + timedelta(days=2)).isoformat()}
    timeline = t.viewer.get(f"/v1/rules/{rule.json()['id']}/timeline", params=window).json()
    fates = [(e["fate"], e["reason"], e["note"]) for e in timeline["items"]]
    assert fates[0] == ("skipped", "calendar", "skipped: holiday (calendar 'Holidays DE')")
    assert len(fates) == 2 and fates[1][0] == "pending", timeline


def test_calendar_edit_replans_the_rules_that_use_it(new_tenant, problem) -> None:
    t = new_tenant()
    assert t.editor.put("/v1/calendars/cal", json={}).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["cal"])).json()
    first = _local_date(rule["next_run_at"])
    edited = t.editor.put("/v1/calendars/cal", json={"excluded": [first.isoformat()]})
    assert edited.status_code == 200, edited.text
    assert edited.json()["rules"] == [{"id": rule["id"], "name": "reminder"}]
    after = t.viewer.get(f"/v1/rules/{rule['id']}").json()
    assert _local_date(after["next_run_at"]) == first + timedelta(days=1)
    assert after["version"] == rule["version"] + 1
    pending = t.viewer.get("/v1/actions", params={"rule_id": rule["id"]}).json()["items"]
    assert [_local_date(a["scheduled_at"]) for a in pending if a["status"] == "pending"] == [
        first + timedelta(days=1)
    ]


def test_calendar_edit_is_a_version_in_each_rules_history_and_in_the_audit_log(new_tenant) -> None:
    """The re-planned rule's new version is in its history (no hole before the next edit's
    diff), with its definition unchanged, and the edit is audited as a calendar change."""
    t = new_tenant()
    assert t.editor.put("/v1/calendars/cal", json={}).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["cal"])).json()
    skipped = _local_date(rule["next_run_at"]).isoformat()
    assert t.editor.put("/v1/calendars/cal", json={"excluded": [skipped]}).status_code == 200
    renamed = t.editor.patch(f"/v1/rules/{rule['id']}", json={"name": "renamed"})
    assert renamed.status_code == 200, renamed.text

    path = f"/v1/rules/{rule['id']}/versions"
    history = t.viewer.get(path).json()["items"]
    assert [v["version"] for v in history] == [1, 2, 3]
    assert history[1]["definition"] == history[0]["definition"]
    assert t.viewer.get(f"{path}/2/diff").json()["changes"] == []
    assert [c["field"] for c in t.viewer.get(f"{path}/3/diff").json()["changes"]] == ["name"]
    audited = audit_rows(t.admin, object_kind="calendar", object_id="cal")
    assert [row["method"] for row in audited] == ["PUT", "PUT"]


def test_deleting_a_calendar_in_use_is_refused_naming_the_rules(new_tenant, problem) -> None:
    t = new_tenant()
    assert t.editor.put("/v1/calendars/cal", json={}).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["cal"])).json()
    answer = problem(t.editor.delete("/v1/calendars/cal"), 409, "invalid-state")
    assert rule["id"] in answer["detail"] and "reminder" in answer["detail"]
    assert t_names(t) == ["cal"]
    changed = t.editor.patch(f"/v1/rules/{rule['id']}", json={"calendars": []})
    assert changed.status_code == 200, changed.text
    assert t.editor.delete("/v1/calendars/cal").status_code == 204


def test_edit_leaving_a_rule_no_occurrence_is_refused_naming_it(new_tenant, problem) -> None:
    """A one-off instant a year ahead: excluding its date would leave the rule nothing."""
    t = new_tenant()
    at = (datetime.now(UTC) + timedelta(days=365)).replace(hour=12, minute=0, second=0)
    assert t.editor.put("/v1/calendars/cal", json={}).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["cal"], at.isoformat())).json()
    day = _local_date(rule["next_run_at"])
    answer = problem(t.editor.put("/v1/calendars/cal", json={"excluded": [str(day)]}), 422)
    assert rule["id"] in answer["detail"]
    assert t.viewer.get("/v1/calendars/cal").json()["excluded"] == []
    assert t.viewer.get(f"/v1/rules/{rule['id']}").json()["version"] == rule["version"]


_DAYS = st.lists(st.integers(min_value=0, max_value=40), max_size=25)
_SCHEDULES = st.sampled_from(
    [DAILY_9, "30 0 * * *", "FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=2;BYMINUTE=30", "every 13h"]
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(days=_DAYS, schedule=_SCHEDULES)
def test_preview_next_dates_equal_what_the_engine_plans(new_tenant, days, schedule) -> None:
    """Generated calendars on generated rules: the rule's planned next run is the preview's
    first date, the timeline's not-yet-due occurrences are the preview's dates, and none falls
    on an excluded Berlin date (the schedules cross 02:00-03:00, the DST hour)."""
    t = new_tenant()
    today = datetime.now(BERLIN).date()
    excluded = sorted({(today + timedelta(days=d)).isoformat() for d in days})
    assert t.editor.put("/v1/calendars/cal", json={"excluded": excluded}).status_code == 201
    rule = t.editor.post("/v1/rules", json=_rule(["cal"], schedule))
    assert rule.status_code == 201, rule.text
    created = datetime.fromisoformat(rule.json()["created_at"])
    body = {
        "schedule": schedule, "timezone": "Europe/Berlin", "calendars": ["cal"], "count": 20,
        "after": created.isoformat(),
    }  # fmt: skip
    listed = [
        datetime.fromisoformat(at)
        for at in t.viewer.post("/v1/preview", json=body).json()["occurrences"]
    ]
    assert datetime.fromisoformat(rule.json()["next_run_at"]) == listed[0]
    assert all(at.astimezone(BERLIN).date().isoformat() not in excluded for at in listed)
    window = {"from": created.isoformat(), "to": (listed[-1] + timedelta(seconds=1)).isoformat()}
    timeline = t.viewer.get(f"/v1/rules/{rule.json()['id']}/timeline", params=window).json()
    expected = [
        datetime.fromisoformat(e["scheduled_at"]) for e in timeline["items"] if e["reason"] is None
    ]
    assert expected == listed


def test_change_preview_of_adding_a_calendar_shows_the_dates_it_skips(new_tenant) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=_rule([])).json()
    first = _local_date(rule["next_run_at"])
    assert t.editor.put("/v1/calendars/cal", json={"excluded": [str(first)]}).status_code == 201
    answer = t.viewer.post(f"/v1/rules/{rule['id']}/preview", json={"calendars": ["cal"]})
    assert answer.status_code == 200, answer.text
    assert _local_date(answer.json()["before"][0]) == first
    assert _local_date(answer.json()["after"][0]) == first + timedelta(days=1)
    unknown = t.viewer.post(f"/v1/rules/{rule['id']}/preview", json={"calendars": ["nope"]})
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "calendars"
