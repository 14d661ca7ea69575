"""Data, settings and the operator's tenant list, in real Chromium against a real server."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect
from support.processes import Server

SECRET = re.compile(r"^cdz_\S{20,}$")


def test_kv_item_saved_in_the_ui_is_listed_edited_and_deleted(
    tenant_page: Page, shoot: Callable[..., None]
) -> None:
    page = tenant_page
    page.get_by_role("link", name="Data").click()
    expect(page.get_by_text("No data yet")).to_be_visible()
    page.get_by_label("Key", exact=True).fill("greeting")
    page.get_by_label("Value (JSON)").fill('{"text": "hello"')
    page.get_by_role("button", name="Save item").click()
    expect(page.get_by_role("alert")).to_contain_text("The value is not JSON")
    page.get_by_label("Value (JSON)").fill('{"text": "hello", "n": [1, 2]}')
    page.get_by_role("button", name="Save item").click()
    row = page.get_by_role("row").filter(has_text="greeting")
    expect(row).to_contain_text('{"text":"hello","n":[1,2]}')
    shoot(page, "data")
    row.get_by_role("button", name="Edit greeting").click()
    expect(page.get_by_label("Value (JSON)")).to_be_focused()
    page.get_by_label("Value (JSON)").fill("42")
    page.get_by_role("button", name="Save item").click()
    expect(row.get_by_role("cell").nth(1)).to_have_text("42")
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete greeting").click()
    expect(page.get_by_text("No data yet")).to_be_visible()


def test_admin_sets_the_webhook_and_creates_a_viewer_key_that_only_reads(
    tenant_page: Page, sign_in: Callable[[str], None], shoot: Callable[..., None]
) -> None:
    page = tenant_page
    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    page.get_by_label("Webhook URL").fill("not a url")
    page.get_by_role("button", name="Save webhook").click()
    expect(page.locator(".problem")).to_be_visible()
    page.get_by_label("Webhook URL").fill("https://example.com/hooks/cadenza")
    page.get_by_role("button", name="Save webhook").click()
    expect(page.get_by_text("Events will be delivered to this URL.")).to_be_visible()
    page.get_by_label("Key name").fill("reporting")
    page.get_by_label("Role").select_option("viewer")
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_label("API key “reporting”")).to_have_value(SECRET)
    viewer_key = page.get_by_label("API key “reporting”").input_value()
    expect(page.get_by_role("row").filter(has_text="reporting")).to_contain_text("viewer")
    shoot(page, "settings")
    page.reload()
    expect(page.get_by_label("Webhook URL")).to_have_value("https://example.com/hooks/cadenza")

    page.get_by_role("button", name="Sign out").click()
    sign_in(viewer_key)
    expect(page.get_by_text("(viewer)")).to_be_visible()
    expect(page.get_by_text("No rules here yet.")).to_be_visible()
    expect(page.get_by_role("link", name="New rule")).to_be_hidden()
    page.get_by_role("link", name="Data").click()
    expect(page.get_by_role("heading", name="Items")).to_be_visible()
    expect(page.get_by_role("button", name="Save item")).to_be_hidden()


def test_operator_creates_a_tenant_and_switches_into_it(
    page: Page,
    server: Server,
    operator_token: str,
    sign_in: Callable[[str], None],
    shoot: Callable[..., None],
) -> None:
    sign_in("cdz_not-a-key")
    expect(page.get_by_role("alert")).to_contain_text("neither a valid API key nor the operator")
    sign_in(operator_token)
    expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
    page.get_by_label("Tenant name").fill("globex")
    page.get_by_role("button", name="Create tenant").click()
    expect(page.get_by_label("First admin key of globex")).to_have_value(SECRET)
    page.get_by_role("heading", name="Tenants").scroll_into_view_if_needed()
    shoot(page, "tenants")
    page.get_by_role("button", name="Open globex").click()
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    expect(page.get_by_label("Tenant").locator("option:checked")).to_have_text("globex")
    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", name="Tenant globex")).to_be_visible()
    page.get_by_label("Tenant").select_option(label="demo")
    expect(page.get_by_label("API key for demo")).to_be_focused()
    page.get_by_label("API key for demo").fill(server.demo_key or "")
    page.get_by_label("API key for demo").press("Enter")
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", name="Tenant demo")).to_be_visible()
