"""Editing a rule someone else changed meanwhile: the UI refuses to overwrite their change."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect
from support.processes import Server


def test_stale_edit_is_refused_and_the_other_change_kept(tenant_page: Page, server: Server) -> None:
    page = tenant_page
    key = page.evaluate("JSON.parse(sessionStorage.getItem('cadenza.session')).credential")
    api = httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {key}"})
    body = {
        "name": "Digest",
        "schedule": "FREQ=DAILY;BYHOUR=8",
        "code": "def main(ctx):\n    pass\n",
    }
    created = api.post("/v1/rules", json=body)
    assert created.status_code == 201, created.text
    rule = created.json()
    page.goto(f"{server.base_url}/ui/#/rules/{rule['id']}/edit")
    expect(page.get_by_label("Time of day")).to_have_value("08:00")

    changed = api.patch(f"/v1/rules/{rule['id']}", json={"description": "changed elsewhere"})
    assert changed.status_code == 200, changed.text
    page.get_by_label("Time of day").fill("07:15")
    page.get_by_role("button", name="Review changes").click()
    review = page.get_by_role("region", name="Before you save")
    expect(review.locator("td.added").first).to_contain_text("07:15")
    page.get_by_role("button", name="Save changes").click()
    expect(
        page.get_by_role("alert").filter(has_text="Someone else changed this rule")
    ).to_be_visible()

    kept = api.get(f"/v1/rules/{rule['id']}").json()
    assert kept["description"] == "changed elsewhere"
    assert kept["schedule"] == "FREQ=DAILY;BYHOUR=8"
    api.close()
