"""Notification routes in real Chromium against a real server: a refused Slack URL shows the
server's problem naming `target`, a valid route appears in the list, and deleting it empties
the list again; at a laptop's and a phone's width, nothing sticking out sideways."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect


@pytest.mark.parametrize("width", [1280, 390])
def test_route_refused_then_added_then_deleted(
    tenant_page: Page, width: int, shoot: Callable[..., None]
) -> None:
    page = tenant_page
    page.set_viewport_size({"width": width, "height": 900})
    page.locator("#nav").get_by_role("link", name="Notifications").click()
    expect(page.get_by_text("No notification routes yet.")).to_be_visible()
    page.get_by_label("Channel").select_option("slack")
    page.get_by_label("Target").fill("http://127.0.0.1:8080/hook")
    page.get_by_role("button", name="Add route").click()
    expect(page.locator(".problem")).to_contain_text("target")
    expect(page.get_by_text("No notification routes yet.")).to_be_visible()

    page.get_by_label("Target").fill("https://hooks.example.com/services/T1/B2")
    page.get_by_label("Skipped by the overlap or misfire policy").check()
    page.get_by_label("Digest every N minutes (optional)").fill("30")
    page.get_by_role("button", name="Add route").click()
    row = page.get_by_role("row").filter(has_text="hooks.example.com")
    expect(row).to_contain_text("failed, recovered, skipped")
    expect(row).to_contain_text("every 30 min")
    expect(row).to_contain_text("all rules")
    expect(row).to_contain_text("nothing sent yet")
    shoot(page, f"notifications-{width}", full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the viewport"

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete route").click()
    expect(page.get_by_text("No notification routes yet.")).to_be_visible()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_rules_own_route_is_added_from_its_page(tenant_page: Page, width: int) -> None:
    page = tenant_page
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(page.url.split("#")[0] + "#/rules/new")
    page.get_by_label("Name", exact=True).fill("nightly")
    page.get_by_label("Schedule (RRULE, cron or plain English)").fill("FREQ=DAILY;BYHOUR=3")
    page.get_by_role("button", name="Create rule").click()
    expect(page.get_by_role("heading", name="nightly")).to_be_visible()
    rule_id = page.url.rsplit("/", 1)[-1]
    page.get_by_role("link", name="Notifications", exact=True).last.click()
    expect(page.get_by_role("heading", name=f"Notifications of rule {rule_id}")).to_be_visible()
    expect(page.get_by_label("Rule id (optional)")).to_have_value(rule_id)
    page.get_by_label("Target").fill("ops@example.com")
    page.get_by_role("button", name="Add route").click()
    row = page.get_by_role("row").filter(has_text="ops@example.com")
    expect(row.get_by_role("link", name=rule_id)).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the viewport"

    page.locator("#nav").get_by_role("link", name="Notifications").click()
    expect(page.get_by_role("row").filter(has_text="ops@example.com")).to_contain_text(rule_id)
