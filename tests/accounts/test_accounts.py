"""Accounts through django-allauth: sign up, mandatory email confirmation, log in/out,
password reset and change, and the profile with its notification preference."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import User
from tests.conftest import PASSWORD

LINK = re.compile(r"https?://\S+")


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(reverse("account_signup"), {
        "email": email, "username": username, "password1": PASSWORD, "password2": PASSWORD,
    })


def link_in(message) -> str:
    return LINK.findall(message.body)[0].replace("http://testserver", "")


def test_sign_up_sends_a_confirmation_email_and_does_not_log_in_yet(client, db):
    response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dora@example.com"]
    assert client.get(reverse("dashboard")).status_code == 302  # not logged in


def test_confirming_the_email_logs_the_player_in(client, db):
    sign_up(client)
    confirm_url = link_in(mail.outbox[0])
    assert "Confirm" in client.get(confirm_url).content.decode()
    response = client.post(confirm_url)
    assert response.status_code == 302
    assert client.get(reverse("dashboard")).status_code == 200
    user = User.objects.get(username="dora")
    assert user.emailaddress_set.get().verified


def test_logging_in_with_an_unconfirmed_email_is_refused(client, db):
    sign_up(client)
    client.logout()
    response = client.post(reverse("account_login"), {"login": "dora", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert client.get(reverse("dashboard")).status_code == 302


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
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert len(mail.outbox) == 1
    reset_url = link_in(mail.outbox[0])
    form_url = client.get(reset_url)["Location"]
    response = client.post(form_url, {"password1": "a-new-long-passphrase", "password2": "a-new-long-passphrase"})
    assert response.status_code == 302
    assert client.login(username="alice", password="a-new-long-passphrase")


def test_password_change(client, alice):
    client.force_login(alice)
    response = client.post(reverse("account_change_password"), {
        "oldpassword": PASSWORD, "password1": "another-long-passphrase", "password2": "another-long-passphrase",
    })
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("another-long-passphrase")


def test_profile_saves_display_name_time_zone_and_turn_emails(client, alice):
    client.force_login(alice)
    assert "When it is my turn" in client.get(reverse("profile")).content.decode()
    response = client.post(reverse("profile"), {
        "display_name": "Ally", "time_zone": "Europe/Paris", "turn_notice": "digest", "digest_hour": "7",
        "reminders": "80", "webhook_url": "",
    })
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.time_zone, alice.turn_notice, alice.digest_hour, alice.reminders) == (
        "Ally", "Europe/Paris", "digest", 7, "80")


def test_profile_refuses_an_unknown_time_zone(client, alice):
    client.force_login(alice)
    response = client.post(reverse("profile"), {"display_name": "Ally", "time_zone": "Mars/Olympus"})
    assert response.status_code == 400
    alice.refresh_from_db()
    assert alice.time_zone == "UTC"


@pytest.mark.parametrize("url_name", ["account_login", "account_signup", "account_reset_password"])
def test_account_pages_use_the_site_layout(client, db, url_name):
    html = client.get(reverse(url_name)).content.decode()
    assert "Boardgames" in html and 'href="/static/css/site.css"' in html


def test_login_is_rate_limited(client, alice, settings):
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "3/m/ip,3/5m/key"}
    for _ in range(3):
        client.post(reverse("account_login"), {"login": "alice", "password": "wrong"})
    response = client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    assert response.status_code in (200, 429)
    assert client.get(reverse("dashboard")).status_code == 302, "locked out after too many failures"


def test_a_player_starts_and_ends_a_vacation_from_the_profile(client, alice):
    client.force_login(alice)
    response = client.post(reverse("vacation"), {"days": "40"})
    assert response.status_code == 400 and "Ensure this value is less than or equal to 30" in response.content.decode()
    assert client.post(reverse("vacation"), {"days": "10"}).status_code == 302
    alice.refresh_from_db()
    assert alice.vacation_until is not None and alice.vacation_days_used == 10
    assert "You are on vacation until" in client.get(reverse("profile")).content.decode()
    assert client.post(reverse("vacation"), {"end": "1"}).status_code == 302
    alice.refresh_from_db()
    assert alice.vacation_until is None
    assert alice.vacation_days_used == 1, "unused whole days go back; the day begun counts"
