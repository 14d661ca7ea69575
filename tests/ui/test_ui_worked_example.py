"""The Slack ping of docs/scripts.md entered through the admin UI as a new tenant would: its
secret and origin in Settings, the page's code pasted into a new rule with its params, a test
run that reaches the Slack stand-in, then the saved rule run now and its HTTP call listed on
the run, never the token."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from support.stand_in import StandIn
from support.threaded_server import serving
from test_ui_rule_lifecycle import SCHEDULE, replace_code
from test_ui_schedule import open_new_rule

DOC = (Path(__file__).resolve().parents[2] / "docs" / "scripts.md").read_text()
SLACK = re.search(r"### Worked example: Slack ping\n.*?```python\n(.*?)```", DOC, re.S)
TOKEN = "xoxb-ui-stand-in-token"


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    with serving(server.server):
        yield server


def test_slack_ping_from_the_docs_entered_in_the_ui_posts_and_shows_its_call(
    tenant_page: Page, stand_in: StandIn
) -> None:
    assert SLACK is not None
    page = tenant_page
    page.get_by_role("link", name="Settings").click()
    page.get_by_label("Secret name").fill("slack_bot")
    page.get_by_label("Secret value").fill(TOKEN)
    page.get_by_role("button", name="Save secret").click()
    expect(page.get_by_text("Secret slack_bot saved.")).to_be_visible()
    page.get_by_label("Allowed origins").fill(stand_in.origin)
    page.get_by_role("button", name="Save allow-list").click()
    expect(page.get_by_text("Scripts may call 1 origin(s).")).to_be_visible()

    page.get_by_role("link", name="Rules", exact=True).click()
    open_new_rule(page)
    page.get_by_label("Name").fill("Slack ping")
    page.get_by_label(SCHEDULE).fill("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0")
    params = {"url": f"{stand_in.origin}/api/chat.postMessage", "channel": "#deploys"}
    page.get_by_label("Parameters (JSON object)").fill(json.dumps(params))
    replace_code(page, SLACK.group(1))
    expect(page.get_by_text("Script compiles.")).to_be_visible()
    page.get_by_role("button", name="Test run").click()
    script = page.get_by_role("group", name="Script")
    expect(script.locator(".test-result")).to_contain_text('{"sent":true}')
    assert _posted(stand_in) == 1

    page.get_by_role("button", name="Create rule").click()
    expect(page.get_by_role("heading", name="Slack ping")).to_be_visible()
    page.get_by_role("button", name="Run now").click()
    page.get_by_role("link", name="Runs", exact=True).click()
    row = page.locator("tr[id^=run-]").first
    expect(row).to_contain_text("ok", timeout=30_000)
    row.locator("summary").click()
    call = row.locator("table.calls").get_by_role("row").filter(has_text="http")
    expect(call).to_contain_text("POST")
    expect(call).to_contain_text("200")
    assert _posted(stand_in) == 2
    assert TOKEN not in page.content()


def _posted(stand_in: StandIn) -> int:
    """The messages the Slack stand-in received, each checked to carry the token."""
    posts = [r for r in stand_in.received if r[1] == "/api/chat.postMessage"]
    assert all(headers["Authorization"] == f"Bearer {TOKEN}" for _, _, headers, _ in posts)
    return len(posts)
