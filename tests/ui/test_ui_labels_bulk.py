"""Labels, filters and bulk actions in the admin UI, and every main screen at a phone's width,
in real Chromium against a real server (at 1280 and 390 px)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.labelled_rules import make_rule
from support.operator import create_tenant_over_api
from support.processes import Server

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def tenant(server: Server, operator_token: str) -> Iterator[tuple[str, httpx.Client]]:
    """A fresh tenant's admin key and an API client holding it."""
    key = create_tenant_over_api(server.base_url, token=operator_token)["api_key"]
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        yield key, client


def _fits(page: Page, width: int) -> None:
    """No horizontal page overflow: the document is no wider than the viewport."""
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} is {scroll_width} px wide at {width} px"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_labels_filter_the_list_and_bulk_pause_confirms_the_dry_run_count(
    page: Page,
    server: Server,
    tenant: tuple[str, httpx.Client],
    sign_in: Callable[[str], None],
    shoot: Callable[..., None],
    viewport: dict[str, int],
) -> None:
    key, client = tenant
    ops = [make_rule(client, f"ops report {n}", labels={"team": "ops"}) for n in range(2)]
    make_rule(client, "dev digest", labels={"team": "dev", "env": "prod"})
    page.set_viewport_size(viewport)
    sign_in(key)
    rows = page.locator("table.rules tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="dev digest")).to_contain_text("env=prod")
    page.get_by_label("Filter by labels").fill("team=ops")
    expect(rows).to_have_count(2)
    page.get_by_role("button", name="Pause all shown…").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading")).to_have_text("Pause 2 rules?")
    for rule in ops:
        expect(dialog).to_contain_text(rule["id"])
    shoot(page, f"rules-bulk-{viewport['width']}")
    _fits(page, viewport["width"])
    assert all(r["enabled"] for r in client.get("/v1/rules").json()["items"])
    dialog.get_by_role("button", name="Pause 2 rules").click()
    expect(page.get_by_text("Paused 2 rules")).to_be_visible()
    page.get_by_label("Show").select_option("false")
    expect(rows).to_have_count(2)
    paused = {r["id"] for r in client.get("/v1/rules", params={"state": "paused"}).json()["items"]}
    assert paused == {r["id"] for r in ops}


def test_labels_are_edited_in_the_rule_form_with_an_inline_error(
    page: Page,
    server: Server,
    tenant: tuple[str, httpx.Client],
    sign_in: Callable[[str], None],
) -> None:
    key, client = tenant
    rule = make_rule(client, "labelled", labels={"team": "ops"})
    sign_in(key)
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    page.goto(f"{server.base_url}/ui/#/rules/{rule['id']}/edit")
    labels = page.get_by_label("Labels (optional)")
    expect(labels).to_have_value("team=ops")
    labels.fill("Team=ops")
    page.get_by_role("button", name="Review changes").click()
    expect(labels).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".field-error:visible")).to_contain_text("should match pattern")
    assert client.get(f"/v1/rules/{rule['id']}").json()["labels"] == {"team": "ops"}
    labels.fill("team=dev, case=123")
    page.get_by_role("button", name="Review changes").click()
    page.get_by_role("button", name="Save changes").click()
    rule_page = page.get_by_role("definition").filter(has_text="case=123")
    expect(rule_page).to_contain_text("team=dev")  # the rule page shows the saved labels
    assert client.get(f"/v1/rules/{rule['id']}").json()["labels"] == {"team": "dev", "case": "123"}


def test_every_main_screen_fits_a_phone(
    page: Page,
    server: Server,
    tenant: tuple[str, httpx.Client],
    sign_in: Callable[[str], None],
    shoot: Callable[..., None],
) -> None:
    key, client = tenant
    rule = make_rule(
        client, "a rule with a rather long name to wrap on a phone", labels={"team": "ops"}
    )
    client.post(f"/v1/rules/{rule['id']}/trigger")
    page.set_viewport_size(PHONE)
    sign_in(key)
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    for screen, heading in [
        ("rules", "Rules"),
        (f"rules/{rule['id']}", rule["name"]),
        (f"rules/{rule['id']}/edit", None),
        ("rules/new", None),
        ("runs", "Runs"),
        ("calendars", "Calendars"),
        ("data", None),
        ("events", None),
        ("settings", None),
    ]:
        page.goto(f"{server.base_url}/ui/#/{screen}")
        if heading:
            expect(page.get_by_role("heading", name=heading, exact=True, level=1)).to_be_visible()
        expect(page.locator("main h1")).to_be_visible()
        page.wait_for_load_state("networkidle")
        if screen.endswith("/edit"):  # its preview table comes after a debounce: measure it too
            expect(page.locator("caption", has_text="Next 10 runs")).to_be_visible()
        _fits(page, PHONE["width"])
        shoot(page, f"phone-{screen.replace('/', '-')}", full_page=True)


def test_the_operators_tenant_list_fits_a_phone(
    page: Page, operator_token: str, sign_in: Callable[[str], None], shoot: Callable[..., None]
) -> None:
    page.set_viewport_size(PHONE)
    sign_in(operator_token)
    expect(page.get_by_role("heading", name="Tenants")).to_be_visible()
    page.wait_for_load_state("networkidle")
    _fits(page, PHONE["width"])
    shoot(page, "phone-tenants", full_page=True)
