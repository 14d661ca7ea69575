"""Calendars in real Chromium against a real server: create one, name it in a rule, see the
preview say what it skips, see which rules use it, and refuse a delete while one does; at a
laptop's and a phone's width."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Locator, Page, expect

BERLIN = ZoneInfo("Europe/Berlin")


def _next_9am_date() -> str:
    now = datetime.now(BERLIN) + timedelta(minutes=5)
    day = now.date() if now.hour < 9 else now.date() + timedelta(days=1)
    return day.isoformat()


@pytest.mark.parametrize("width", [1280, 390])
def test_calendar_created_named_by_a_rule_previewed_and_guarded(
    tenant_page: Page, width: int, shoot: Callable[..., None]
) -> None:
    page = tenant_page
    page.set_viewport_size({"width": width, "height": 900})
    page.locator("#nav").get_by_role("link", name="Calendars").click()
    expect(page.get_by_text("No calendars yet.")).to_be_visible()
    holiday = _next_9am_date()
    page.get_by_label("Calendar name").fill("Holidays DE")
    page.get_by_label("Excluded dates").fill("2026-13-01")
    page.get_by_role("button", name="Save calendar").click()
    expect(page.locator(".problem")).to_contain_text("excluded.0")
    page.get_by_label("Excluded dates").fill(holiday)
    page.get_by_role("button", name="Save calendar").click()
    row = page.get_by_role("row").filter(has_text="Holidays DE")
    expect(row).to_contain_text("1 excluded")
    expect(row).to_contain_text("no rule")

    page.goto(page.url.split("#")[0] + "#/rules/new")
    page.get_by_label("Name", exact=True).fill("stand-up")
    page.get_by_label("Schedule (RRULE, cron or plain English)").fill(
        "FREQ=DAILY;BYHOUR=9;BYMINUTE=0"
    )
    page.get_by_label("Time zone").fill("Europe/Berlin")
    page.get_by_label("Calendars (optional)").fill("Holidays DE")
    preview = page.locator(".preview")
    expect(preview.locator(".schedule-text")).to_contain_text(
        "except dates in calendar 'Holidays DE'"
    )
    skipped = preview.get_by_role("list", name="Skipped by calendars")
    expect(skipped).to_contain_text("skipped: holiday (calendar 'Holidays DE')")
    shoot(page, f"rule-calendar-preview-{width}", full_page=True)
    _assert_within(page.get_by_label("Calendars (optional)"), page.locator("section.schedule"))
    _assert_within(skipped, preview)
    page.get_by_role("button", name="Create rule").click()
    expect(page.get_by_role("heading", name="stand-up")).to_be_visible()

    page.locator("#nav").get_by_role("link", name="Calendars").click()
    row = page.get_by_role("row").filter(has_text="Holidays DE")
    expect(row.get_by_role("link", name="stand-up")).to_be_visible()
    shoot(page, f"calendars-{width}", full_page=True)
    _assert_no_horizontal_overflow(page)
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete Holidays DE").click()
    expect(page.locator(".toast.bad")).to_contain_text("is used by 1 rule(s)")
    expect(row).to_be_visible()


def _assert_within(element: Locator, container: Locator) -> None:
    """`element` does not stick out of `container` sideways. (On a phone the rule form as a
    whole is still wider than the screen on main: that is issue 22's phone-width part, on
    another branch; the calendars page itself is checked against the viewport.)"""
    inner, outer = element.bounding_box(), container.bounding_box()
    assert inner is not None and outer is not None
    assert outer["x"] <= inner["x"] and inner["x"] + inner["width"] <= outer["x"] + outer["width"]


def _assert_no_horizontal_overflow(page: Page) -> None:
    """Nothing sticks out of the viewport sideways (a phone would scroll the whole page)."""
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the viewport"
