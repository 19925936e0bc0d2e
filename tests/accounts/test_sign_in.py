"""Signing in (by username or email, only once the email is confirmed) and out, password reset
and change, the limits on failed sign-ins (the admin's too) and the page a limited request gets,
and the account pages in the site's layout and wording."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.cache import cache
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from tests.accounts.conftest import link_in, sign_up
from tests.conftest import PASSWORD, make_user


def test_logging_in_with_an_unconfirmed_email_is_refused(client, db):
    sign_up(client)
    client.logout()
    response = client.post(reverse("account_login"), {"login": "dora", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert client.get(reverse("dashboard")).status_code == 302


def test_the_sign_in_form_asks_for_a_username_or_email(client, db):
    assert '<label for="id_login">Username or email:</label>' in client.get(reverse("account_login")).content.decode()


def test_a_sign_in_with_an_overlong_login_is_refused_by_the_form(client, alice):
    # On SQLite the lookup of a 60,000-character login failed ("LIKE pattern too complex"): a 500.
    response = client.post(reverse("account_login"), {"login": "a" * 60_000, "password": PASSWORD})
    assert response.status_code == 200
    assert "at most 254 characters" in response.content.decode()
    assert 'maxlength="254"' in client.get(reverse("account_login")).content.decode()


def test_log_in_by_username_or_email_and_log_out(client, alice):
    for login in ("alice", "alice@example.com"):
        response = client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
        assert response.status_code == 302 and response["Location"] == reverse("dashboard")
        client.post(reverse("account_logout"))
        assert client.get(reverse("dashboard")).status_code == 302


def test_a_wrong_password_is_refused_in_plain_words(client, alice):
    response = client.post(reverse("account_login"), {"login": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "not correct" in response.content.decode()


def test_password_reset_by_email(client, alice):
    assert "contact us" not in client.get(reverse("account_reset_password")).content.decode().lower()
    done = client.post(reverse("account_reset_password"), {"email": "alice@example.com"}, follow=True)
    assert "check your spam folder" in done.content.decode() and "contact us" not in done.content.decode().lower()
    assert len(mail.outbox) == 1 and mail.outbox[0].subject == "[Boardgames] Your password reset link"
    assert "Reset my password" in client.get(reverse("account_reset_password")).content.decode()
    reset_url = link_in(mail.outbox[0])
    form_url = client.get(reset_url)["Location"]
    response = client.post(form_url, {"password1": "a-new-long-passphrase", "password2": "a-new-long-passphrase"})
    assert response.status_code == 302
    # Signed in at once: the page said only "Your password is now changed", with no way on.
    assert client.get(reverse("dashboard")).status_code == 200
    client.logout()
    assert client.login(username="alice", password="a-new-long-passphrase")


def test_a_reset_link_used_already_says_so_in_plain_words(client, alice):
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    reset_url = link_in(mail.outbox[0])
    form_url = client.get(reset_url)["Location"]
    client.post(form_url, {"password1": "a-new-long-passphrase", "password2": "a-new-long-passphrase"})

    page = client.get(reset_url, follow=True).content.decode()

    assert re.search(r"<h1>\s*This link no longer works\s*</h1>", page)
    assert "Bad token" not in page
    assert f'<a href="{reverse("account_reset_password")}">new password reset</a>' in page


def test_a_wrong_current_password_is_called_wrong_not_missing(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("account_change_password"),
        {
            "oldpassword": "not-my-password",
            "password1": "another-long-passphrase",
            "password2": "another-long-passphrase",
        },
    )
    assertContains(response, "That is not your current password.")
    assertNotContains(response, "Please type your current password")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_password_change(client, alice, settings):
    alice.time_zone = "Europe/Paris"
    alice.save()
    client.force_login(alice)
    response = client.post(
        reverse("account_change_password"),
        {
            "oldpassword": PASSWORD,
            "password1": "another-long-passphrase",
            "password2": "another-long-passphrase",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("another-long-passphrase")
    [told] = [m for m in mail.outbox if m.to == ["alice@example.com"]]  # it may not have been her
    assert told.subject == "[Boardgames] Password changed" and told.body.rstrip().endswith(f"{settings.SITE_URL}/")
    date_line = r"^- Date: \w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d CES?T \(Europe/Paris\)$"
    assert re.search(date_line, told.body, re.M), "her time, named"


def test_login_is_rate_limited(client, alice, settings):
    settings.SIGN_IN_FAILURES_PER_ACCOUNT = 3
    for _ in range(3):
        client.post(reverse("account_login"), {"login": "alice", "password": "wrong"})
    response = client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    assert response.status_code in (200, 429)
    assert client.get(reverse("dashboard")).status_code == 302, "locked out after too many failures"


def test_a_flood_of_other_counters_does_not_wipe_an_accounts_sign_in_limit(client, alice, settings):
    """The cache keeps the limits' counters. With Django's default of 300 entries, a third of
    them went at the 301st, so tries under many other names or addresses reset an account's count."""
    settings.SIGN_IN_FAILURES_PER_ACCOUNT = 3
    for _ in range(3):
        client.post(reverse("account_login"), {"login": "alice", "password": "wrong"})
    for n in range(400):  # as many other names tried, each with its own counter
        cache.set(f"someone-else-{n}", 1, 300)

    client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})

    assert client.get(reverse("dashboard")).status_code == 302, "still locked out"


def test_the_admin_sign_in_is_rate_limited_as_the_sites_is(client, db, settings):
    """/admin/login/ took any number of wrong passwords for a staff account."""
    settings.SIGN_IN_FAILURES_PER_ACCOUNT = 3
    make_user("boss", is_staff=True)
    for _ in range(3):
        wrong = client.post(reverse("admin:login"), {"username": "boss", "password": "wrong"})
        assert "Please enter the correct username and password" in wrong.content.decode()

    response = client.post(reverse("admin:login"), {"username": "boss", "password": PASSWORD})

    assert "Too many failed login attempts" in response.content.decode()
    assert client.get(reverse("admin:index")).status_code == 302, "locked out after too many failures"


def test_staff_sign_in_to_the_admin_with_their_password(client, db):
    make_user("boss", is_staff=True)
    make_user("player")
    response = client.post(reverse("admin:login"), {"username": "boss", "password": PASSWORD})
    assert response.status_code == 302 and client.get(reverse("admin:index")).status_code == 200
    client.logout()
    refused = client.post(reverse("admin:login"), {"username": "player", "password": PASSWORD})
    assert "Please enter the correct username and password for a staff account" in refused.content.decode()


def test_a_rate_limited_request_gets_the_sites_page_saying_what_to_do(client, alice, settings):
    """allauth's own answer was a bare "429 Too Many Requests" page, with no way back."""
    settings.ACCOUNT_RATE_LIMITS = {"manage_email": "1/m/user"}
    client.force_login(alice)
    client.post(reverse("account_email"), {"email": "alice2@example.com", "action_add": ""})
    response = client.post(reverse("account_email"), {"email": "alice3@example.com", "action_add": ""})
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many tries" in page and "Wait a few minutes and try again" in page
    assert f'href="{reverse("dashboard")}">Back to My matches' in page
    assert not EmailAddress.objects.filter(email="alice3@example.com").exists()


@pytest.mark.parametrize("url_name", ["account_login", "account_signup", "account_reset_password"])
def test_account_pages_use_the_site_layout(client, db, url_name):
    html = client.get(reverse(url_name)).content.decode()
    assert "Boardgames" in html and 'href="/static/css/site.css"' in html


@pytest.mark.parametrize(
    ("url_name", "heading"),
    [
        ("account_login", "Sign in"),
        ("account_signup", "Sign up"),
        ("account_reset_password", "Password reset"),
    ],
)
def test_account_pages_write_headings_in_sentence_case_like_the_rest_of_the_site(client, db, url_name, heading):
    html = client.get(reverse(url_name)).content.decode()
    assert re.search(rf"<h1>\s*{heading}\s*</h1>", html)
    assert heading.title() not in html, "allauth's Title Case is translated to ours"


def test_the_compiled_wording_matches_its_source():
    """locale/en/LC_MESSAGES/django.mo is committed: it must say what django.po says."""
    import gettext
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "locale" / "en" / "LC_MESSAGES"
    pairs = re.findall(r'^msgid "(.+)"\nmsgstr "(.*)"$', (folder / "django.po").read_text(), re.MULTILINE)
    with (folder / "django.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    pairs = [(source.replace('\\"', '"'), ours.replace('\\"', '"')) for source, ours in pairs]  # a quoted link
    assert pairs and all(catalog.gettext(source) == ours for source, ours in pairs), "run msgfmt (see django.po)"
    assert len(catalog._catalog) - 1 == len(pairs), "the .mo holds nothing the .po does not"
