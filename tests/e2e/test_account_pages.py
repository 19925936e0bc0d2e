"""Account pages in a real browser, where a script decides what happens."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from playwright.sync_api import expect

from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e]


def test_removing_an_email_address_asks_first(page, live_server, alice):
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/accounts/email/")
    page.get_by_label("alice2@example.com").check()
    asked = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_role("button", name="Remove").click()
    page.wait_for_timeout(500)
    assert asked == ["Do you really want to remove the selected email address?"]
    assert EmailAddress.objects.filter(email="alice2@example.com").exists(), "a No keeps the address"

    page.once("dialog", lambda dialog: answer(dialog, True))
    page.get_by_role("button", name="Remove").click()
    expect(page.get_by_label("alice2@example.com")).to_have_count(0)
    assert not EmailAddress.objects.filter(email="alice2@example.com").exists()
