"""A rule's history through the typed client against a live server: versions, diff, rollback."""

from __future__ import annotations

import pytest
from cadenza_client import AsyncClient, Client, NewRule, NotFound, RuleChanges, StaleVersion

CODE = "def main(ctx):\n    pass\n"


def test_versions_diff_and_rollback_with_if_match(editor: Client) -> None:
    first = editor.rules.create(NewRule(name="r", schedule="FREQ=DAILY;BYHOUR=9", code=CODE))
    second = editor.rules.update(first, RuleChanges(schedule="FREQ=HOURLY"))

    history = list(editor.rule_history.list(first, limit=1))
    changed = editor.rule_history.diff(second, 2)

    assert [v.version for v in history] == [1, 2]
    assert history[0].definition.schedule == "FREQ=DAILY;BYHOUR=9"
    assert [(c.field, c.before, c.after) for c in changed.changes] == [
        ("schedule", "FREQ=DAILY;BYHOUR=9", "FREQ=HOURLY")
    ]
    with pytest.raises(StaleVersion):
        editor.rule_history.rollback(first, 1)  # read at version 1, edited since
    rolled = editor.rule_history.rollback(second, 1)
    assert rolled.version == 3 and rolled.schedule == "FREQ=DAILY;BYHOUR=9"
    assert editor.rule_history.get(rolled, 3).definition == history[0].definition
    with pytest.raises(NotFound):
        editor.rule_history.get(rolled, 9)


async def test_async_client_reads_versions(async_editor: AsyncClient) -> None:
    rule = await async_editor.rules.create(NewRule(name="a", schedule="every 1h", code=CODE))
    await async_editor.rules.pause(rule)
    found = [v async for v in async_editor.rule_history.list(rule)]
    assert [(v.version, v.definition.enabled) for v in found] == [(1, True), (2, False)]
