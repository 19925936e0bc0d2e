"""Steps several browser tests take the same way."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.conftest import PASSWORD


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username or email").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My matches")).to_be_visible()
