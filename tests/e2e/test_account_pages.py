"""Account pages in a real browser, where a script decides what happens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse
from playwright.sync_api import expect

from accounts.models import User
from tests.conftest import PASSWORD, start_match
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e]


def test_removing_an_email_address_asks_first(page, live_server, alice):
    """The site asks on a page of its own (no script, so no dialog), and Keep it keeps the address."""
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/accounts/email/")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.get_by_label("alice2@example.com").check()
    page.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("heading", name="Remove alice2@example.com from your account?")).to_be_visible()
    page.get_by_role("link", name="Keep it").click()
    expect(page.get_by_label("alice2@example.com")).to_have_count(1)
    assert EmailAddress.objects.filter(email="alice2@example.com").exists(), "Keep it keeps the address"

    page.get_by_label("alice2@example.com").check()
    page.get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="Remove it").click()
    expect(page.get_by_label("alice2@example.com")).to_have_count(0)
    assert not EmailAddress.objects.filter(email="alice2@example.com").exists()
    assert dialogs == [], "asked once, by the page, not a second time by a dialog"


def test_a_new_player_starts_in_the_browsers_time_zone(browser, live_server, db):
    with console_checked_page(browser, timezone_id="America/Sao_Paulo") as page:
        page.goto(f"{live_server.url}/accounts/signup/")
        page.get_by_label("Email").fill("dora@example.com")
        page.get_by_label("Username").fill("dora")
        page.locator("#id_password1").fill("a-long-enough-passphrase")
        page.locator("#id_password2").fill("a-long-enough-passphrase")
        page.get_by_role("button", name="Sign up").click()
        expect(page).to_have_url(live_server.url + reverse("account_email_verification_sent"))
    assert User.objects.get(username="dora").time_zone == "America/Sao_Paulo"


def test_a_player_closes_their_account_from_the_profile_and_cannot_sign_in_again(page, live_server, alice):
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/accounts/profile/")
    page.get_by_role("link", name="Close my account").click()
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Close my account").click()
    expect(page.get_by_text("Your account is closed and you are signed out.")).to_be_visible()

    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username or email").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="This account is closed")).to_be_visible()
    alice.refresh_from_db()
    assert not alice.is_active


def test_download_my_data_saves_a_json_file_from_the_profile_and_the_close_page(page, live_server, alice, bob):
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    for start, link in (("/accounts/profile/", "Download my data"), ("/accounts/profile/close/", "download your data")):
        page.goto(f"{live_server.url}{start}")
        with page.expect_download() as download:
            page.get_by_role("link", name=link).click()
        assert download.value.suggested_filename.startswith("boardgames-alice-")
        data = json.loads(Path(download.value.path()).read_text())
        assert data["account"]["username"] == "alice" and [entry["id"] for entry in data["matches"]] == [match.pk]
        assert page.url == f"{live_server.url}{start}", "the page stays: the file is saved beside it"
