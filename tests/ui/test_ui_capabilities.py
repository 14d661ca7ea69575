"""Capabilities in the admin UI: the tenant sees what the operator granted with its schema, and
a run's page lists its capability calls (name, outcome, sizes), never their arguments."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import httpx
from playwright.sync_api import Page, expect
from support.operator import create_tenant_over_api
from support.polling import until
from support.processes import Server

SECRET_ARG = "order-4711-for-ada"


def test_granted_capabilities_show_with_schemas_and_a_run_shows_its_calls(
    page: Page, server: Server, sign_in: Callable[[str], None], operator_token: str
) -> None:
    operator = {"Authorization": f"Bearer {operator_token}"}
    created = create_tenant_over_api(server.base_url, token=operator_token)
    grants = f"{server.base_url}/v1/admin/tenants/{created['id']}/capabilities"
    assert httpx.put(f"{grants}/test.echo", headers=operator).status_code == 200
    tenant = {"Authorization": f"Bearer {created['api_key']}"}
    code = f"def main(ctx):\n    return ctx.call('test.echo', {{'ref': '{SECRET_ARG}'}})['args']\n"
    submitted = httpx.post(
        f"{server.base_url}/v1/actions",
        json={"run_at": datetime.now(UTC).isoformat(), "code": code},
        headers=tenant,
        timeout=30,
    )
    assert submitted.status_code == 201, submitted.text
    until(
        lambda: httpx.get(f"{server.base_url}/v1/runs", headers=tenant).json()["items"],
        timeout_s=60,
    )
    sign_in(created["api_key"])
    page.get_by_role("link", name="Settings").click()
    card = page.locator("section").filter(has=page.get_by_role("heading", name="Capabilities"))
    expect(card.get_by_role("row").filter(has_text="test.echo")).to_be_visible()
    card.get_by_text("schema", exact=True).click()
    expect(card.locator("pre")).to_contain_text('"type": "object"')
    page.get_by_role("link", name="Runs", exact=True).click()
    row = page.locator("tr[id^=run-]").first
    row.locator("summary").click()
    calls = row.locator("table.calls")
    expect(calls.get_by_role("row").filter(has_text="test.echo")).to_contain_text("capability")
    expect(calls.get_by_role("row").filter(has_text="test.echo")).to_contain_text("ok")
    assert SECRET_ARG not in calls.inner_text()
