"""A rule's history tab in real Chromium: versions, the diff of one, and a confirmed rollback,
at laptop and phone width."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.processes import Server

WIDTHS = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
RULE = {"name": "Report", "schedule": "FREQ=DAILY;BYHOUR=9", "code": "def main(ctx):\n    pass\n"}


def _rule_with_two_versions(page: Page, server: Server) -> tuple[httpx.Client, str]:
    key = page.evaluate("JSON.parse(sessionStorage.getItem('cadenza.session')).credential")
    headers = {"Authorization": f"Bearer {key}"}
    client = httpx.Client(base_url=server.base_url, headers=headers, timeout=30)
    rule_id = client.post("/v1/rules", json=RULE).json()["id"]
    edited = client.patch(f"/v1/rules/{rule_id}", json={"schedule": "FREQ=HOURLY"})
    assert edited.status_code == 200, edited.text
    return client, rule_id


@pytest.mark.parametrize("width", WIDTHS)
def test_history_shows_the_diff_and_rolls_back_only_when_confirmed(
    tenant_page: Page, server: Server, shoot: Callable[..., None], width: str
) -> None:
    page = tenant_page
    client, rule_id = _rule_with_two_versions(page, server)
    page.set_viewport_size(WIDTHS[width])
    page.goto(page.url.split("#")[0] + f"#/rules/{rule_id}")
    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="Rule history")).to_be_visible()
    versions = page.locator("li.version")
    expect(versions).to_have_count(2)
    expect(versions.first).to_contain_text("current")
    page.get_by_role("button", name="Changes in version 2").click()
    changed = page.get_by_role("row").filter(has_text="schedule")
    expect(changed).to_contain_text("FREQ=DAILY;BYHOUR=9")
    expect(changed).to_contain_text("FREQ=HOURLY")
    shoot(page, f"rule-history-{width}", full_page=True)

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Roll back to version 1").click()
    expect(versions).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Roll back to version 1").click()
    expect(versions).to_have_count(3)
    expect(versions.first).to_contain_text("Version 3")
    assert client.get(f"/v1/rules/{rule_id}").json()["schedule"] == RULE["schedule"]
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
    client.close()
