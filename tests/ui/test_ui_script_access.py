"""Secrets and the HTTP allow-list in the admin UI, used by a script's test run against a local
stand-in service: the value is written once and never shown, not even in what the run did."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect
from support.stand_in import StandIn
from support.threaded_server import serving
from test_ui_rule_lifecycle import replace_code
from test_ui_schedule import open_new_rule

VALUE = "sk_ui_7f3a9c1e5b"


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    with serving(server.server):
        yield server


def test_a_secret_and_an_origin_set_in_the_ui_serve_a_script_that_never_shows_the_value(
    tenant_page: Page, stand_in: StandIn
) -> None:
    page = tenant_page
    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_text("No secrets yet.")).to_be_visible()
    page.get_by_label("Secret name").fill("token")
    page.get_by_label("Secret value").fill(VALUE)
    page.get_by_role("button", name="Save secret").click()
    expect(page.get_by_text("Secret token saved.")).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="token")).to_be_visible()
    expect(page.get_by_label("Secret value")).to_have_value("")
    assert VALUE not in page.content()
    origins = page.get_by_label("Allowed origins")
    origins.fill("ftp://files.example.com")
    page.get_by_role("button", name="Save allow-list").click()
    expect(page.locator(".problem")).to_be_visible()
    origins.fill(stand_in.origin)
    page.get_by_role("button", name="Save allow-list").click()
    expect(page.get_by_text("Scripts may call 1 origin(s).")).to_be_visible()
    page.get_by_role("link", name="Rules", exact=True).click()
    open_new_rule(page)
    replace_code(
        page,
        "def main(ctx):\n"
        "    auth = {'Authorization': 'Bearer ' + ctx.secret_ref('token')}\n"
        f"    answer = ctx.http.request('GET', '{stand_in.origin}/echo', auth)\n"
        "    print(answer['body'])\n"
        "    return answer['status']\n",
    )
    page.get_by_role("button", name="Test run").click()
    script = page.get_by_role("group", name="Script")
    expect(script).to_contain_text("Bearer [secret]")
    assert VALUE not in page.content()
    assert stand_in.received[0][2]["Authorization"] == f"Bearer {VALUE}"
