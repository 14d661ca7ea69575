"""Rules through the blocking client against a live server: versions, pages, steering, errors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from cadenza_client import (
    Client,
    Forbidden,
    InvalidCursor,
    InvalidId,
    InvalidRule,
    InvalidSchedule,
    NewRule,
    NotFound,
    Role,
    RuleChanges,
    StaleVersion,
    Unauthorized,
    ValidationFailed,
)
from support.client_tenants import Tenant

CODE = 'def main(ctx):\n    ctx.emit("ping", {"n": ctx.params.get("n", 0)})\n    return 7\n'


def new_rule(name: str = "ping", **fields: object) -> NewRule:
    return NewRule.model_validate({"name": name, "schedule": "every 1h", "code": CODE, **fields})


def test_a_created_rule_reads_back_with_the_fields_given_and_the_servers_defaults(
    editor: Client,
) -> None:
    created = editor.rules.create(new_rule(timezone="Europe/Berlin", params={"n": 3}))
    read = editor.rules.get(created.id)
    assert read == created
    assert (read.timezone, read.params, read.version, read.max_attempts) == (
        "Europe/Berlin",
        {"n": 3},
        1,
        3,
    )
    assert read.schedule_text and read.next_run_at is not None


def test_an_update_sends_the_version_read_and_a_stale_copy_changes_nothing(editor: Client) -> None:
    read = editor.rules.create(new_rule())
    changed = editor.rules.update(read, RuleChanges(description="first"))
    assert changed.version == read.version + 1
    with pytest.raises(StaleVersion) as stale:
        editor.rules.update(read, RuleChanges(description="lost update"))
    assert (stale.value.status, stale.value.type) == (412, "/problems/stale-version")
    assert stale.value.current_version == changed.version
    assert editor.rules.get(read.id).description == "first"


def test_an_id_updates_the_current_version_unless_a_version_is_named(editor: Client) -> None:
    read = editor.rules.create(new_rule())
    editor.rules.update(read.id, RuleChanges(priority=5))
    with pytest.raises(StaleVersion):
        editor.rules.update(read.id, RuleChanges(priority=6), version=read.version)
    assert editor.rules.update(read.id, RuleChanges(priority=7)).priority == 7


def test_changes_send_only_the_fields_given_and_null_clears_a_field(editor: Client) -> None:
    read = editor.rules.create(new_rule(misfire_grace_s=60, description="kept"))
    changed = editor.rules.update(read, RuleChanges(misfire_grace_s=None))
    assert (changed.misfire_grace_s, changed.description) == (None, "kept")


def test_a_stale_delete_keeps_the_rule_and_a_current_one_removes_it(editor: Client) -> None:
    read = editor.rules.create(new_rule())
    changed = editor.rules.update(read, RuleChanges(name="renamed"))
    with pytest.raises(StaleVersion):
        editor.rules.delete(read)
    assert editor.rules.get(read.id).name == "renamed"
    editor.rules.delete(changed)
    with pytest.raises(NotFound) as gone:
        editor.rules.get(read.id)
    assert gone.value.status == 404


def test_listing_iterates_every_page_in_order_and_page_reads_one(editor: Client) -> None:
    made = [editor.rules.create(new_rule(f"rule {n}")).id for n in range(5)]
    first = editor.rules.page(limit=2)
    assert len(first.items) == 2 and first.next_cursor is not None
    second = editor.rules.page(limit=2, cursor=first.next_cursor)
    every = [rule.id for rule in editor.rules.list(limit=2)]
    assert sorted(every) == sorted(made) and len(set(every)) == 5
    assert every[:4] == [rule.id for rule in (*first.items, *second.items)]
    assert [r.name for r in editor.rules.list(search="rule 3")] == ["rule 3"]


def test_a_forged_cursor_raises_invalid_cursor_naming_the_field(editor: Client) -> None:
    with pytest.raises(InvalidCursor) as bad:
        editor.rules.page(cursor="not-a-cursor!")
    assert (bad.value.status, bad.value.field) == (422, "cursor")


def test_a_refused_schedule_names_the_field_and_position(editor: Client) -> None:
    with pytest.raises(InvalidSchedule) as refused:
        editor.rules.create(NewRule(name="bad", schedule="FREQ=DAILY;BYHOUR=25", code=CODE))
    problem = refused.value
    assert (problem.status, problem.type, problem.field) == (
        422,
        "/problems/invalid-schedule",
        "schedule",
    )
    assert problem.errors[0].position == 11 and "BYHOUR=25" in problem.detail
    with pytest.raises(InvalidSchedule) as previewed:
        editor.schedules.preview("FREQ=DAILY;BYHOUR=25")
    assert previewed.value.field == "schedule"


def test_a_value_out_of_bounds_raises_validation_failed_naming_the_field(editor: Client) -> None:
    with pytest.raises(ValidationFailed) as refused:
        editor.rules.create(new_rule(max_attempts=0))
    assert (refused.value.type, refused.value.field) == ("/problems/validation", "max_attempts")
    assert refused.value.errors[0].location == "body"


def test_roles_and_tenants_are_enforced_as_typed_errors(
    tenant: Tenant, new_tenant: Callable[..., Tenant], connect: Callable[..., Client]
) -> None:
    viewer = connect(tenant.keys[Role.VIEWER])
    with pytest.raises(Forbidden) as forbidden:
        viewer.rules.create(new_rule())
    assert forbidden.value.status == 403
    with pytest.raises(Unauthorized):
        connect("cdz_" + "x" * 32).rules.page()
    theirs = connect(new_tenant().keys[Role.EDITOR]).rules.create(new_rule())
    with pytest.raises(NotFound):
        viewer.rules.get(theirs)


def test_an_id_holding_a_slash_or_an_empty_key_is_refused_before_any_request(
    editor: Client,
) -> None:
    with pytest.raises(InvalidId, match="hold no '/'"):
        editor.rules.get("r_1/pause")
    with pytest.raises(ValueError, match="not empty"):
        editor.kv.get("")


def test_pause_resume_trigger_and_backfill_steer_the_rules_runs(editor: Client) -> None:
    rule = editor.rules.create(new_rule(schedule="DTSTART:20260101T000000Z\nRRULE:FREQ=HOURLY"))
    assert editor.rules.pause(rule).enabled is False
    assert editor.rules.resume(rule).enabled is True
    action = editor.rules.trigger(rule)
    assert action.rule_id == rule.id == editor.actions.get(action).rule_id
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    backfilled = editor.rules.backfill(rule, end - timedelta(hours=3), end)
    assert [a.scheduled_at for a in backfilled.items] == [
        end - timedelta(hours=h) for h in (3, 2, 1)
    ]
    assert all(a.rule_id == rule.id for a in backfilled.items)


def test_timeline_stats_and_change_preview_read_as_records(editor: Client) -> None:
    rule = editor.rules.create(new_rule(schedule="FREQ=DAILY;BYHOUR=9"))
    now = datetime.now(UTC)
    timeline = editor.rules.timeline(
        rule, start=now - timedelta(days=1), end=now + timedelta(days=2)
    )
    assert timeline.rule_id == rule.id and timeline.items
    assert any(entry.fate == "not_yet_due" or entry.fate == "pending" for entry in timeline.items)
    assert editor.rules.stats(rule).rule_id == rule.id
    change = editor.rules.preview_change(
        rule, RuleChanges(schedule="FREQ=DAILY;BYHOUR=10"), count=3
    )
    assert len(change.before) == len(change.after) == 3
    assert {at.hour for at in change.after} == {10} and change.pending


def test_validate_and_test_run_save_nothing(editor: Client) -> None:
    assert editor.rules.validate(new_rule()) is None
    with pytest.raises(InvalidRule):
        editor.rules.validate(new_rule(code="def main(ctx) oops"))
    trial = editor.rules.test_run(CODE, params={"n": 2})
    assert (trial.status, trial.result) == ("ok", 7)
    assert [(e.type, e.payload) for e in trial.events] == [("ping", {"n": 2})]
    assert list(editor.rules.list()) == []
