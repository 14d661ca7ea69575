"""The issue's scenario end to end, as a tenant admin on a fresh database: build "every weekday
at 09:00 Europe/Berlin", see the text and dates, get an inline error for a bad RRULE, save,
run it now and watch the run appear with its output, then make the script fail and find the
error; along the way the compile error at its line and the before/after dates of an edit."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from playwright.sync_api import Page, expect
from support.processes import Server

SCHEDULE = "Schedule (RRULE, cron or plain English)"
GREETING = (
    'def main(ctx):\n    print("hello from", ctx.rule.name)\n'
    '    ctx.emit("standup", {"team": "core"})\n    return 7\n'
)
FAILING = 'def main(ctx):\n    print("about to fail")\n    raise ValueError("no recipients")\n'


def replace_code(page: Page, code: str) -> None:
    """Type into the code editor as a person pasting would."""
    editor = page.get_by_label("Script code")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def add_rules_by_api(server: Server) -> None:
    """Two more rules, as another client of the same tenant would add them."""
    headers = {"Authorization": f"Bearer {server.demo_key}"}
    code = "def main(ctx):\n    return None\n"
    for rule in (
        {"name": "Invoice digest", "schedule": "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17"},
        {"name": "Nightly export", "schedule": "30 2 * * *", "enabled": False},
    ):
        response = httpx.post(
            f"{server.base_url}/v1/rules", json={**rule, "code": code}, headers=headers, timeout=30
        )
        assert response.status_code == 201, response.text


def test_weekday_rule_built_saved_run_and_failure_found(
    page: Page, server: Server, sign_in: Callable[[str], None], shoot: Callable[..., None]
) -> None:
    sign_in(server.demo_key or "")
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    page.get_by_role("link", name="New rule").click()

    page.get_by_label("Name").fill("Stand-up reminder")
    page.get_by_label("Frequency").select_option("DAILY")
    page.get_by_label("Frequency").select_option("WEEKLY")
    page.get_by_role("button", name="Weekdays").click()
    page.get_by_label("Time of day").fill("09:00")
    page.get_by_label("Time zone").fill("Europe/Berlin")
    preview = page.get_by_role("region", name="Preview")
    expect(preview).to_contain_text("every weekday at 9:00 (Europe/Berlin)")
    expect(preview.get_by_role("row")).to_have_count(11)

    schedule = page.get_by_label(SCHEDULE)
    schedule.fill("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,XY;BYHOUR=9")
    expect(schedule).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert").filter(has_text="'XY' is not a weekday")).to_be_visible()
    page.get_by_role("button", name="Weekdays").click()  # the builder writes the RRULE again
    expect(schedule).to_have_value("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0")
    expect(schedule).not_to_have_attribute("aria-invalid", "true")

    replace_code(page, "def main(ctx):\n    x = = 1\n")
    expect(page.get_by_text("Line 2: SyntaxError")).to_be_visible()
    replace_code(page, GREETING)
    expect(page.get_by_text("Script compiles.")).to_be_visible()
    page.get_by_role("button", name="Create rule").click()

    expect(page.get_by_role("heading", name="Stand-up reminder")).to_be_visible()
    expect(page.get_by_text("every weekday at 9:00 (Europe/Berlin)")).to_be_visible()
    page.get_by_role("button", name="Run now").click()
    runs = page.get_by_role("region", name="Runs")
    ok_run = runs.get_by_role("row").filter(has_text="hello from Stand-up reminder")
    expect(ok_run).to_be_visible(timeout=30_000)
    expect(ok_run.get_by_text("ok")).to_be_visible()
    shoot(page, "rule-page", full_page=True)

    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Time of day").fill("10:00")
    replace_code(page, FAILING)
    page.get_by_role("button", name="Review changes").click()
    review = page.get_by_role("region", name="Before you save")
    expect(review.get_by_role("columnheader", name="After saving")).to_be_visible()
    expect(review.locator("td.added").first).to_contain_text("10:00")
    expect(review.locator("td.removed").first).to_contain_text("09:00")
    shoot(page, "rule-review")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text("every weekday at 10:00 (Europe/Berlin)")).to_be_visible()

    page.get_by_role("button", name="Run now").click()
    failed = runs.locator("tr.failed").filter(has_text="ValueError: no recipients").first
    expect(failed).to_be_visible(timeout=30_000)
    failed.get_by_text("ValueError: no recipients").first.click()
    expect(failed.get_by_role("heading", name="Error (line 3)")).to_be_visible()
    expect(failed.get_by_role("button", name="Retry")).to_be_visible()

    add_rules_by_api(server)
    page.get_by_role("link", name="Rules", exact=True).click()
    row = page.get_by_role("row").filter(has_text="Stand-up reminder")
    expect(row).to_contain_text("every weekday at 10:00 (Europe/Berlin)")
    expect(row.locator(".badge.bad")).to_be_visible()
    for name in ("Invoice digest", "Nightly export"):
        expect(page.get_by_role("link", name=name)).to_be_visible()
    shoot(page, "rules-list")
    page.get_by_label("Show").select_option("false")
    expect(page.get_by_role("row")).to_have_count(3)  # the header, and the two paused rules:
    for name in ("Nightly export", "count every minute"):  # the demo rule is made paused
        expect(page.get_by_role("row").filter(has_text=name)).to_be_visible()
    page.get_by_label("Show").select_option("")
    page.get_by_label("Search rules").fill("invoice")
    expect(page.get_by_role("row")).to_have_count(2)
    expect(page.get_by_role("row").nth(1)).to_contain_text("the last Friday")
    page.get_by_role("link", name="Runs", exact=True).click()
    expect(page.get_by_role("img", name="Runs per hour")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^failed: [1-9]"))).to_be_visible()
    shoot(page, "runs")
    page.get_by_role("link", name="Events").click()
    standup = page.get_by_role("listitem").filter(has_text="standup")
    expect(standup).to_contain_text('{"team":"core"}')
    expect(standup.get_by_role("link", name="from its rule")).to_be_visible()
    shoot(page, "events")
