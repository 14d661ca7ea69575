"""Fixtures of the UI tests: a real `cadenza serve`, real headless Chromium, a signed-in page.

Chromium is Debian's (`/usr/bin/chromium`, or `CADENZA_CHROMIUM`), driven by Playwright; a
machine without it skips these tests, except under CI (`CI=true`) where that is a failure.
Set `CADENZA_UI_SCREENSHOTS=<dir>` to also save screenshots of the main screens there.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright
from support.ci import missing
from support.host_product import IN_PROCESS, PLUGIN_DIR
from support.operator import create_tenant_over_api
from support.processes import Server, running_server

CHROMIUM = os.environ.get("CADENZA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OPERATOR_TOKEN = "ui-test-operator-token"
#: The viewer's zone differs from the rules' zone, so both date columns show.
VIEWER_ZONE = "America/New_York"
LAPTOP = {"width": 1366, "height": 800}
expect.set_options(timeout=15_000)


# Per module, not per session: Playwright's sync API keeps an event loop marked running in
# the main thread while it is open, and an xdist worker may run async tests after a UI file.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        missing(f"Chromium not found at {CHROMIUM}")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def server(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`cadenza serve` on a fresh SQLite database, with the operator API open.

    One server for the whole UI run (starting one costs seconds): each test works in a tenant
    of its own, and only the scenario test uses the demo tenant's rules.
    """
    path = tmp_path_factory.mktemp("ui-db") / "cadenza.db"
    shutil.copy(sqlite_template, path)
    env = {"CADENZA_ADMIN_TOKEN": OPERATOR_TOKEN}
    # Scripts' HTTP may reach the tests' stand-in services on loopback (`ctx.http`).
    env |= {"CADENZA_HTTP_SCHEMES": "https,http", "CADENZA_HTTP_ALLOW_PRIVATE": "true"}
    # Capabilities scripts may call (`ctx.call`): the test plugin's, performed in-process.
    registry = path.with_name("capabilities.json")
    registry.write_text(json.dumps({"capabilities": IN_PROCESS}))
    env |= {"CADENZA_CAPABILITIES_FILE": str(registry), "PYTHONPATH": str(PLUGIN_DIR)}
    with running_server(f"sqlite+aiosqlite:///{path}", env=env) as started:
        yield started


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    """A fresh browser tab on the UI, not signed in.

    The test fails if the page had a JavaScript error or asked anything of another origin
    (the UI must work with no network beyond its own server: no CDN, no web fonts).
    """
    context = browser.new_context(viewport=LAPTOP, timezone_id=VIEWER_ZONE, locale="en-GB")
    tab = context.new_page()
    errors: list[str] = []
    foreign: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on(
        "request",
        lambda request: (
            None
            if request.url.startswith((server.base_url + "/", "data:"))
            else foreign.append(request.url)
        ),
    )
    tab.goto(f"{server.base_url}/")
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not foreign, f"requests beyond our own origin: {foreign}"


@pytest.fixture
def operator_token() -> str:
    """The CADENZA_ADMIN_TOKEN the server was started with."""
    return OPERATOR_TOKEN


@pytest.fixture
def sign_in(page: Page) -> Callable[[str], None]:
    """Sign in through the form, as a person would."""

    def submit(secret: str) -> None:
        page.get_by_label("API key or operator token").fill(secret)
        page.get_by_role("button", name="Sign in").click()

    return submit


@pytest.fixture
def tenant_page(page: Page, server: Server, sign_in: Callable[[str], None]) -> Page:
    """The tab signed in as the admin of a tenant of its own, on its (empty) rules list.

    The tenant comes from the operator API (a CLI call would cost a Python start per test).
    """
    sign_in(create_tenant_over_api(server.base_url, token=OPERATOR_TOKEN)["api_key"])
    expect(page.get_by_role("heading", name="Rules", exact=True)).to_be_visible()
    return page


@pytest.fixture
def shoot() -> Callable[..., None]:
    """Save the page as `<name>.png` when CADENZA_UI_SCREENSHOTS names a directory."""
    target = os.environ.get("CADENZA_UI_SCREENSHOTS")

    def save(page: Page, name: str, *, full_page: bool = False) -> None:
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(target) / f"{name}.png"), full_page=full_page)

    return save
