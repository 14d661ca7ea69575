"""The client's labels, filters, bulk operations and `put` against a live server, sync and
async."""

from __future__ import annotations

import pytest
from cadenza_client import (
    AsyncClient,
    BulkOperation,
    Client,
    Conflict,
    NewRule,
    RuleState,
    StaleVersion,
    ValidationFailed,
)

CODE = "def main(ctx):\n    return 1\n"


def _rule(name: str, **labels: str) -> NewRule:
    return NewRule(name=name, schedule="every 1h", code=CODE, labels=labels)


def test_put_creates_replaces_and_guards_by_version(editor: Client) -> None:
    created = editor.rules.put("case-123", _rule("reminder", case="123"))
    assert (created.id, created.version, created.labels) == ("case-123", 1, {"case": "123"})
    assert editor.rules.put("case-123", _rule("reminder", case="123")) == created
    replaced = editor.rules.put("case-123", _rule("moved", case="123"), version=1)
    assert (replaced.name, replaced.version) == ("moved", 2)
    with pytest.raises(StaleVersion):
        editor.rules.put("case-123", _rule("again"), version=1)


def test_filters_and_bulk_by_label(editor: Client) -> None:
    ops = sorted(editor.rules.create(_rule(f"ops{n}", team="ops")).id for n in range(3))
    editor.rules.create(_rule("dev", team="dev"))
    listed = sorted(r.id for r in editor.rules.list(labels=("team=ops",), limit=2))
    assert listed == ops
    counted = editor.rules.bulk(BulkOperation.PAUSE, labels=("team=ops",), dry_run=True)
    assert (counted.count, counted.ids, counted.dry_run) == (3, tuple(ops), True)
    assert [r.name for r in editor.rules.list(state=RuleState.PAUSED)] == []
    done = editor.rules.bulk(BulkOperation.PAUSE, labels=("team=ops",))
    assert done.count == 3
    paused = sorted(r.id for r in editor.rules.list(state=RuleState.PAUSED))
    assert paused == ops
    assert editor.rules.bulk(BulkOperation.PAUSE, labels=("team=ops",)).count == 0
    with pytest.raises(ValidationFailed) as bad:
        editor.rules.page(labels=("Team=ops",))
    assert bad.value.errors[0].field.startswith("label")


async def test_async_put_and_bulk(async_editor: AsyncClient) -> None:
    created = await async_editor.rules.put("async-1", _rule("a", team="x"))
    assert created.labels == {"team": "x"}
    result = await async_editor.rules.bulk(BulkOperation.DELETE, labels=("team=x",))
    assert result.ids == ("async-1",)
    with pytest.raises(Conflict):  # deleted rules keep their ids
        await async_editor.rules.put("async-1", _rule("a"))
