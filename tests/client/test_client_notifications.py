"""Notification routes through the typed client, blocking and async, against a live server:
typed records back, enums both ways, and the server's refusals as typed exceptions."""

from __future__ import annotations

import pytest
from cadenza_client import (
    AsyncClient,
    Client,
    InvalidInput,
    NewRule,
    NotFound,
    NotificationChannel,
    NotificationEvent,
    NotificationRoute,
)

FAILED, RECOVERED = NotificationEvent.FAILED, NotificationEvent.RECOVERED


def test_routes_round_trip_as_typed_records(editor: Client) -> None:
    rule = editor.rules.create(
        NewRule(name="nightly", schedule="FREQ=DAILY", code="def main(ctx):\n    pass\n")
    )
    tenant_wide = editor.notification_routes.create(
        [RECOVERED, FAILED], NotificationChannel.EMAIL, target="ops@example.com"
    )
    assert isinstance(tenant_wide, NotificationRoute) and tenant_wide.rule_id is None
    assert tenant_wide.events == (FAILED, RECOVERED)
    own = editor.notification_routes.create(
        [NotificationEvent.SKIPPED], NotificationChannel.WEBHOOK, rule=rule, digest_minutes=15
    )
    assert (own.channel, own.target, own.digest_minutes) == (NotificationChannel.WEBHOOK, "", 15)
    assert editor.notification_routes.get(own.id) == own
    assert [r.id for r in editor.notification_routes.list(limit=1)] == [tenant_wide.id, own.id]
    assert [r.id for r in editor.notification_routes.list(rule=rule)] == [own.id]
    editor.notification_routes.delete(tenant_wide)
    with pytest.raises(NotFound):
        editor.notification_routes.get(tenant_wide.id)


def test_refusals_name_the_field(editor: Client) -> None:
    with pytest.raises(InvalidInput) as private:
        editor.notification_routes.create(
            [FAILED], NotificationChannel.SLACK, target="http://127.0.0.1:9/hook"
        )
    assert private.value.errors[0].field == "target"
    with pytest.raises(InvalidInput) as no_rule:
        editor.notification_routes.create(
            [FAILED], NotificationChannel.WEBHOOK, rule="r_0000000000000000"
        )
    assert no_rule.value.errors[0].field == "rule_id"
    assert list(editor.notification_routes.list()) == []


async def test_async_client_creates_lists_and_deletes(async_editor: AsyncClient) -> None:
    made = [
        await async_editor.notification_routes.create(
            [FAILED], NotificationChannel.SLACK, target=f"https://hooks.example.com/{n}"
        )
        for n in range(3)
    ]
    listed = [r async for r in async_editor.notification_routes.list(limit=2)]
    assert listed == made
    await async_editor.notification_routes.delete(made[0].id)
    assert [r.id async for r in async_editor.notification_routes.list()] == [m.id for m in made[1:]]
