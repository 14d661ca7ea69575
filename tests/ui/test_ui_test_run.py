"""The editor's Test run: the script runs once in the real sandbox and the page shows what it
did (result, output, events, data changes) without saving anything."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from test_ui_rule_lifecycle import replace_code
from test_ui_schedule import open_new_rule

SCRIPT = (
    "def main(ctx):\n"
    "    ctx.kv.set('greeted', True)\n"
    "    ctx.emit('email', {'to': 'ops'})\n"
    "    print('hello from the test run')\n"
    "    return 42\n"
)


def test_test_run_shows_result_output_events_and_data_changes(tenant_page: Page) -> None:
    page = tenant_page
    open_new_rule(page)
    replace_code(page, SCRIPT)
    expect(page.get_by_text("Script compiles.")).to_be_visible()
    page.get_by_role("button", name="Test run").click()
    script = page.get_by_role("group", name="Script")
    expect(script).to_contain_text("hello from the test run")
    expect(script).to_contain_text("ok in")
    expect(script.get_by_role("heading", name="Result")).to_be_visible()
    expect(script).to_contain_text("42")
    expect(script).to_contain_text('email {"to":"ops"}')
    expect(script).to_contain_text('{"greeted":true}')
