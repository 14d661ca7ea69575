"""The rule editor's schedule half, in real Chromium against a real server: the builder writes
the RRULE, the live preview shows text and dates in two zones, a bad RRULE is an inline error."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

SCHEDULE = "Schedule (RRULE, cron or plain English)"


def open_new_rule(page: Page) -> None:
    page.get_by_role("link", name="New rule").first.click()
    expect(page.get_by_role("heading", name="New rule")).to_be_visible()


def test_builder_weekdays_0900_berlin_previews_text_and_dates_in_both_zones(
    tenant_page: Page, shoot: Callable[..., None]
) -> None:
    page = tenant_page
    open_new_rule(page)
    page.get_by_label("Frequency").select_option("DAILY")
    page.get_by_label("Frequency").select_option("WEEKLY")
    page.get_by_role("button", name="Weekdays").click()
    page.get_by_label("Time of day").fill("09:00")
    page.get_by_label("Time zone").fill("Europe/Berlin")
    expect(page.get_by_label(SCHEDULE)).to_have_value(
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0"
    )
    preview = page.get_by_role("region", name="Preview")
    expect(preview).to_contain_text("every weekday at 9:00 (Europe/Berlin)")
    dates = preview.get_by_role("table")
    expect(dates.get_by_role("row")).to_have_count(11)
    expect(dates.get_by_role("columnheader", name="In Europe/Berlin")).to_be_visible()
    expect(dates.get_by_role("columnheader", name="Your time (America/New_York)")).to_be_visible()
    first = dates.get_by_role("row").nth(1)
    expect(first).to_contain_text("09:00 CE")  # 09:00 CET or CEST in Berlin...
    expect(first).to_contain_text(":00 GMT-")  # ...and 03:00 or 04:00 in New York
    for row in dates.get_by_role("row").all()[1:]:
        expect(row).not_to_contain_text("Sat")
        expect(row).not_to_contain_text("Sun")
    page.get_by_role("heading", name="New rule").scroll_into_view_if_needed()
    shoot(page, "rule-editor")


def test_bad_rrule_shows_the_error_at_the_schedule_field(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    field = page.get_by_label(SCHEDULE)
    field.fill("FREQ=WEEKLY;BYDAY=MO,XX;BYHOUR=9")
    expect(field).to_have_attribute("aria-invalid", "true")
    error = page.locator(f"#{field.get_attribute('aria-errormessage')}")
    expect(error).to_contain_text("'XX' is not a weekday")
    expect(error.locator("mark")).to_have_text("BYDAY=MO,XX")
    expect(page.get_by_role("region", name="Preview")).to_contain_text("No preview")
    field.fill("FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("region", name="Preview")).to_contain_text(
        "every week on Monday and Friday"
    )


def test_raw_text_fills_the_builder_back(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    page.get_by_label(SCHEDULE).fill("FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=30;COUNT=5")
    expect(page.get_by_label("Frequency")).to_have_value("MONTHLY")
    expect(page.get_by_label("Which")).to_have_value("-1")
    expect(page.get_by_label("Weekday", exact=True)).to_have_value("FR")
    expect(page.get_by_label("Time of day")).to_have_value("17:30")
    expect(page.get_by_label("Number of runs")).to_have_value("5")
    expect(page.get_by_role("region", name="Preview")).to_contain_text("the last Friday")
    page.get_by_label(SCHEDULE).fill("30 8 * * 1-5")
    expect(page.get_by_label("Frequency")).to_have_value("WEEKLY")
    expect(page.get_by_label("Time of day")).to_have_value("08:30")
    page.get_by_label(SCHEDULE).fill("every weekday at 9am")
    expect(page.get_by_text("The builder can't show this schedule")).to_be_visible()
    expect(page.get_by_role("region", name="Preview")).to_contain_text("every weekday at 9:00")


def test_keyboard_leaves_the_code_editor_with_escape_then_tab(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    editor = page.get_by_label("Script code")
    editor.click()
    page.keyboard.press("Tab")
    expect(editor).to_be_focused()  # Tab indents inside the editor...
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")  # ...and after Escape it moves on
    expect(page.get_by_role("button", name="Test run")).to_be_focused()


def test_dst_gap_choice_changes_the_preview(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    page.get_by_label("Time zone").fill("Europe/Berlin")
    page.get_by_label(SCHEDULE).fill("DTSTART:20270327T023000 RRULE:FREQ=DAILY;COUNT=3")
    preview = page.get_by_role("region", name="Preview")
    expect(preview.get_by_role("row")).to_have_count(4)
    expect(preview.get_by_role("row").nth(2)).to_contain_text("28 Mar 2027, 03:30 CEST")
    expect(preview.get_by_role("row").nth(2)).to_contain_text("02:30 -> 03:30 (DST gap)")
    expect(preview.get_by_label("Warnings")).to_contain_text("02:30 does not exist on 2027-03-28")
    page.get_by_label("When the time is skipped (spring forward)").select_option("skip")
    # COUNT counts runs: the skipped 28 March is not one, so the third run is on 30 March
    expect(preview.get_by_role("row")).to_have_count(4)
    expect(preview.get_by_role("row").nth(2)).to_contain_text("Mon, 29 Mar 2027, 02:30 CEST")
    expect(preview.get_by_role("row").nth(3)).to_contain_text("Tue, 30 Mar 2027, 02:30 CEST")
    expect(preview.get_by_label("Warnings")).to_contain_text("are skipped")


def test_save_errors_land_at_their_fields(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    page.get_by_label("Time zone").fill("Mars/Olympus")
    expect(page.get_by_label("Time zone")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Time zone").fill("Europe/Paris")
    expect(page.get_by_label("Time zone")).not_to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Create rule").click()
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Name")).to_be_focused()
    page.get_by_label("Name").fill("Too slow")
    page.get_by_label("Timeout (ms)").fill("3600000")
    page.get_by_role("button", name="Create rule").click()
    expect(page.get_by_label("Timeout (ms)")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text("Please fix the highlighted field.")).to_be_visible()
