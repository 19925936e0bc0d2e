"""Signing up through django-allauth: the mandatory confirmation email (the player is not signed
in before confirming), the browser's time zone kept or UTC said, a username another player goes
by refused, each error next to its own field, and confirmation links, fresh or used already."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.forms import TIME_ZONE_NOT_TOLD
from accounts.models import User
from tests.accounts.conftest import link_in, sign_up
from tests.conftest import PASSWORD, make_user


def test_sign_up_sends_a_confirmation_email_and_does_not_log_in_yet(client, db):
    response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dora@example.com"]
    assert mail.outbox[0].subject == "[Boardgames] Please confirm your email address"
    assert "because dora gave this address for their account on Boardgames." in mail.outbox[0].body
    assert client.get(reverse("dashboard")).status_code == 302  # not logged in
    sent = client.get(response["Location"]).content.decode()
    assert "signing in again sends a new one (at most one every 3 minutes)" in sent
    assert "contact us" not in sent.lower(), "the site names no contact"


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("Asia/Tokyo", "Asia/Tokyo"),
        ("Asia/Calcutta", "Asia/Calcutta"),  # an old name some browsers still give
        ("Etc/GMT+5", "Etc/GMT+5"),  # a machine set to a fixed offset
        ("Mars/Olympus_Mons", "UTC"),
        ("", "UTC"),  # no JavaScript
        ("localtime", "UTC"),  # the server's own zone: the tz database has it, no place is called so
        ("Factory", "UTC"),
        ("Europe/" + "x" * 100, "UTC"),  # refused the sign-up with a message about a field nobody sees
    ],
)
def test_sign_up_keeps_the_browsers_time_zone_or_says_it_starts_in_utc(client, db, sent, kept):
    """site.js fills the hidden field; every new player's times were in UTC before. A zone we
    do not know was taken in silence, and the player was left to wonder why the times were off."""
    response = client.post(
        reverse("account_signup"),
        {
            "email": "dora@example.com",
            "username": "dora",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "time_zone": sent,
        },
        follow=True,
    )
    assert User.objects.get(username="dora").time_zone == kept
    told = TIME_ZONE_NOT_TOLD in response.content.decode()
    assert told == (kept == "UTC"), "said when, and only when, the browser's zone was not taken"


def test_sign_up_refuses_a_username_that_is_another_players_display_name(client, db):
    make_user("dorothy", display_name="Dora")
    response = sign_up(client)
    assert response.status_code == 200 and not User.objects.filter(username="dora").exists()
    assert "Another player is already called “dora”; choose another name." in response.content.decode()


def test_a_field_error_sits_with_its_own_field_below_its_label(client, db):
    """Each error is inside its field's block, after the label (the sign-up page showed the
    username's error above "Username", where it read as the email's), and the input names it
    for screen readers."""
    make_user("dorothy", display_name="Dora")
    page = sign_up(client).content.decode()
    block = re.search(r'<div[^>]*>((?:(?!</div>).)*?id="id_username_error".*?)</div>', page, re.S)
    assert block, "the username's error is inside a field block"
    field = block.group(1)
    assert field.index('<label for="id_username"') < field.index('id="id_username_error"')
    assert re.search(r'<input[^>]*aria-describedby="[^"]*id_username_error', field)
    profile_user = make_user("erin")
    client.force_login(profile_user)
    page = client.post(reverse("profile"), {"display_name": "Dora"}).content.decode()
    assert re.search(r'<label for="id_display_name".*?id="id_display_name_error"', page, re.S)


def test_confirming_the_email_logs_the_player_in(client, db):
    sign_up(client)
    confirm_url = link_in(mail.outbox[0])
    assert "Confirm" in client.get(confirm_url).content.decode()
    response = client.post(confirm_url)
    assert response.status_code == 302 and response["Location"] == reverse("dashboard")
    assert client.get(reverse("dashboard")).status_code == 200
    user = User.objects.get(username="dora")
    assert user.emailaddress_set.get().verified


def test_a_confirmation_link_used_already_is_not_only_called_invalid(client, db):
    """allauth cannot tell a used link from a wrong one; its page said "expired or is invalid"
    to a player who had just confirmed with it."""
    page = client.get(reverse("account_confirm_email", args=["not-a-key"])).content.decode()
    assert "This confirmation link has expired, is not valid, or was used already" in page
    assert f'<a href="{reverse("account_email")}">ask for a new confirmation email</a>' in page
