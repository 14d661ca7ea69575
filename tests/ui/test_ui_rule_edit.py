"""Rules made by another client: paging through many, pausing one, and editing one that
someone else changed meanwhile (the UI refuses to overwrite their change)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
from playwright.sync_api import Page, expect
from support.processes import Server

CODE = "def main(ctx):\n    pass\n"


def api_client(page: Page, server: Server) -> httpx.Client:
    """An HTTP client with the key the tab signed in with."""
    key = page.evaluate("JSON.parse(sessionStorage.getItem('cadenza.session')).credential")
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


def test_rules_list_pages_and_a_rule_pauses_and_resumes(tenant_page: Page, server: Server) -> None:
    page = tenant_page
    with api_client(page, server) as api:
        for n in range(27):
            body = {"name": f"rule {n:02}", "schedule": f"FREQ=DAILY;BYHOUR={n % 24}", "code": CODE}
            assert api.post("/v1/rules", json=body).status_code == 201
    page.reload()
    expect(page.get_by_role("row")).to_have_count(26)
    page.get_by_role("button", name="Next page").click()
    expect(page.get_by_text("Page 2")).to_be_visible()
    expect(page.get_by_role("row")).to_have_count(3)
    page.get_by_role("button", name="Previous page").click()
    expect(page.get_by_role("row")).to_have_count(26)

    page.get_by_label("Search rules").fill("rule 05")  # the list's order is the API's, not by name
    expect(page.get_by_role("row")).to_have_count(2)
    page.get_by_role("link", name="rule 05").click()
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("dl.facts")).to_contain_text("Paused")
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    page.get_by_role("link", name="Rules", exact=True).click()
    page.get_by_label("Show").select_option("false")
    expect(page.get_by_role("row")).to_have_count(2)
    page.get_by_role("link", name="rule 05").click()
    page.get_by_role("button", name="Resume").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(page.locator("dl.facts")).to_contain_text("Active")
    timeline = page.get_by_role("region", name="Timeline")
    due = timeline.get_by_role("listitem").filter(has_text="due").first
    due.get_by_role("button", name="Cancel").click()
    expect(timeline.get_by_role("listitem").filter(has_text="cancelled")).to_have_count(1)


def test_stale_edit_is_refused_and_the_other_change_kept(tenant_page: Page, server: Server) -> None:
    page = tenant_page
    api = api_client(page, server)
    body = {"name": "Digest", "schedule": "FREQ=DAILY;BYHOUR=8", "code": CODE}
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


def test_rule_in_english_folds_the_builder_until_asked_then_is_deleted(
    tenant_page: Page, server: Server
) -> None:
    page = tenant_page
    with api_client(page, server) as api:
        body = {"name": "Plain", "schedule": "every weekday at 9am", "code": CODE}
        created = api.post("/v1/rules", json=body)
        assert created.status_code == 201, created.text
    page.goto(f"{server.base_url}/ui/#/rules/{created.json()['id']}/edit")
    expect(page.get_by_label("Schedule (RRULE, cron or plain English)")).to_have_value(
        "every weekday at 9am"
    )
    expect(page.get_by_text("The builder can't show this schedule")).to_be_visible()
    expect(page.get_by_label("Frequency")).to_be_hidden()
    page.get_by_role("button", name="Start over with the builder").click()
    expect(page.get_by_label("Frequency")).to_be_visible()
    expect(page.get_by_label("Schedule (RRULE, cron or plain English)")).to_have_value(
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0"
    )
    page.get_by_role("link", name="Cancel").click()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No rules here yet.")).to_be_visible()


def test_backfill_runs_the_occurrences_of_a_past_window(tenant_page: Page, server: Server) -> None:
    page = tenant_page
    with api_client(page, server) as api:
        schedule = "DTSTART:20260101T080000 RRULE:FREQ=DAILY;BYHOUR=8"
        body = {"name": "Daily 8", "schedule": schedule, "code": "def main(ctx):\n    return 1\n"}
        created = api.post("/v1/rules", json=body)
        assert created.status_code == 201, created.text
    page.goto(f"{server.base_url}/ui/#/rules/{created.json()['id']}")
    page.get_by_text("Backfill: run the occurrences of a past window").click()
    browser_zone = page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone")
    today = datetime.now(ZoneInfo(browser_zone)).replace(hour=0, minute=0, tzinfo=None)
    page.get_by_label("From (your time)").fill(f"{today - timedelta(days=3):%Y-%m-%dT%H:%M}")
    page.get_by_label("Until (your time)").fill(f"{today:%Y-%m-%dT%H:%M}")
    page.get_by_role("button", name="Plan the runs").click()
    expect(page.get_by_text("3 runs planned")).to_be_visible()
    runs = page.get_by_role("region", name="Runs")
    expect(runs.get_by_role("row").filter(has_text="result: 1")).to_have_count(3, timeout=30_000)
