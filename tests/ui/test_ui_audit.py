"""The audit page in real Chromium: changes made in the UI appear, filtered, at laptop and phone
width; a viewer key is not offered the page."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

WIDTHS = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _save_item(page: Page, key: str, value: str) -> None:
    page.get_by_role("link", name="Data").click()
    page.get_by_label("Key", exact=True).fill(key)
    page.get_by_label("Value (JSON)").fill(value)
    page.get_by_role("button", name="Save item").click()
    expect(page.get_by_role("row").filter(has_text=key)).to_be_visible()


@pytest.mark.parametrize("width", WIDTHS)
def test_changes_made_in_the_ui_are_in_the_audit_log_filtered_by_object(
    tenant_page: Page, shoot: Callable[..., None], width: str
) -> None:
    page = tenant_page
    _save_item(page, "greeting", '"hello"')
    _save_item(page, "counter", "1")
    page.set_viewport_size(WIDTHS[width])
    page.goto(page.url.split("#")[0] + "#/audit")
    expect(page.get_by_role("heading", name="Audit log")).to_be_visible()
    entries = page.locator("li.audit-entry")
    expect(entries.filter(has_text="data greeting")).to_contain_text("/v1/kv/{key}")
    expect(entries.filter(has_text="data counter")).to_contain_text("PUT")
    page.get_by_label("Object id").fill("counter")
    page.get_by_role("button", name="Filter").click()
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text("data counter")
    page.get_by_label("Object id").fill("nothing-like-this")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_text("No changes match these filters.")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
    page.get_by_label("Object id").fill("")
    page.get_by_role("button", name="Filter").click()
    expect(entries).to_have_count(3)  # the tenant's creation by the operator, then both items
    shoot(page, f"audit-{width}", full_page=True)
