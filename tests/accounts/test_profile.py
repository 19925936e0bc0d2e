"""The profile: display name, time zone, turn emails, reminders, webhook and move confirmation
saved, or refused at the field with what was typed kept; not kept for Back; vacations started
and ended by the player (not by staff editing the player); and the delivery failures it shows
until the address they went to changes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from accounts.forms import UNKNOWN_TIME_ZONE
from games import services
from games.models import Seat
from notifications.models import Notification
from tests.accounts.conftest import profile_data
from tests.games.conftest import start_timed_match


def test_profile_saves_display_name_time_zone_and_turn_emails(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert "When it is my turn" in page
    assert re.search(r'<input type="number" name="digest_hour" value="8" max="23" min="0"', page)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "Ally",
            "time_zone": "Europe/Paris",
            "turn_notice": "digest",
            "digest_hour": "7",
            "reminders": "80",
            "webhook_url": "",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.time_zone, alice.turn_notice, alice.digest_hour, alice.reminders) == (
        "Ally",
        "Europe/Paris",
        "digest",
        7,
        "80",
    )


def test_profile_offers_to_confirm_each_move_off_until_the_player_turns_it_on(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    box = re.search(r'<input type="checkbox" name="confirm_moves"[^>]*>', page)
    assert box and "checked" not in box.group()
    assert "Confirm each move before it is sent" in page
    assert "A click on the board first selects the move; a second click on Confirm sends it." in page

    assert client.post(reverse("profile"), profile_data(confirm_moves="on")).status_code == 302
    alice.refresh_from_db()
    assert alice.confirm_moves is True
    assert re.search(
        r'<input type="checkbox" name="confirm_moves"[^>]* checked>', client.get(reverse("profile")).content.decode()
    )

    client.post(reverse("profile"), profile_data())  # a checkbox left unticked is not sent
    alice.refresh_from_db()
    assert alice.confirm_moves is False


@pytest.mark.parametrize("page", ["profile", "account_email", "account_close"])
def test_the_pages_with_private_details_are_not_kept_for_back(client, alice, page):
    """Back after signing out showed the browser's copy: the address, the time zone, the vacation."""
    client.force_login(alice)
    response = client.get(reverse(page))
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    assertContains(response, "data-fresh-on-back")  # site.js loads it again if a browser kept it all the same


def test_the_turn_email_setting_says_what_comes_at_once_even_with_a_digest(client, alice):
    """It said the setting "also covers invitations", which a digest does not hold back."""
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert "Invitations, results, timeouts and more time from staff come at once, unless you choose no email." in page
    assert "Also covers invitations" not in page


@pytest.mark.parametrize("zone", ["Mars/Olympus", "localtime", "Factory", "Europe/Berlin<b>"])  # 2, 3: system entries
def test_profile_refuses_an_unknown_time_zone(client, alice, zone):
    client.force_login(alice)
    assert f'value="{zone}"' not in client.get(reverse("profile")).content.decode()
    response = client.post(reverse("profile"), profile_data(time_zone=zone))
    assert response.status_code == 400 and UNKNOWN_TIME_ZONE in response.content.decode()
    alice.refresh_from_db()
    assert alice.time_zone == "UTC"


def test_the_time_zone_list_has_todays_names_and_a_stored_old_alias_stays_selectable(client, alice, bob):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert 'value="Asia/Kolkata"' in page and 'value="Asia/Calcutta"' not in page, "one name per place"
    assert client.post(reverse("profile"), profile_data(time_zone="Asia/Calcutta")).status_code == 400
    bob.time_zone = "Asia/Calcutta"  # chosen when the list still offered it
    bob.save()
    client.force_login(bob)
    assert 'value="Asia/Calcutta" selected' in client.get(reverse("profile")).content.decode()
    response = client.post(reverse("profile"), {**profile_data(time_zone="Asia/Calcutta"), "display_name": "Bob"})
    assert response.status_code == 302
    bob.refresh_from_db()
    assert bob.time_zone == "Asia/Calcutta"


def test_a_refused_profile_keeps_the_typed_values_in_the_form_only(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "Davey",
            "time_zone": "UTC",
            "turn_notice": "now",
            "digest_hour": "7",
            "reminders": "50",
            "webhook_url": "ftp://x",
        },
    )
    page = response.content.decode()
    assert response.status_code == 400 and 'value="Davey"' in page, "the form keeps what was typed"
    assert "your display name, <strong>Alice</strong>" in page and ">Davey</a>" not in page, "nothing was saved"


def test_a_refused_profile_comes_back_at_the_field_it_refuses(client, alice):
    """The page came back at its top: on a phone the webhook's refusal, under the fold, went unseen."""
    client.force_login(alice)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "Alice",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "7",
            "reminders": "50",
            "webhook_url": "ftp://x",
        },
    )
    page = response.content.decode()
    assert response.status_code == 400 and page.count("autofocus") == 1
    assert re.search(r'<input type="url" name="webhook_url"[^>]* autofocus[ >]', page)


@pytest.mark.parametrize("url", ["ftp://example.org/hook", "file:///etc/passwd", "https://"])
def test_a_webhook_that_is_no_web_address_is_refused_saying_what_is_wanted(client, alice, url):
    client.force_login(alice)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "Alice",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "7",
            "reminders": "50",
            "webhook_url": url,
        },
    )
    assertContains(response, "Enter a web address that starts with http:// or https://.", status_code=400)
    assertNotContains(response, "Enter a valid URL", status_code=400)


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


def test_staff_cannot_end_or_start_a_vacation_by_editing_the_player(client, alice, bob, staff):
    """Cleared on the player's admin page, a vacation left the stopped clocks stopped for good
    (the sweep ends only vacations it can see); typed in there, it stopped none."""
    match = start_timed_match(alice, bob)
    services.vacation_start(user_id=alice.pk, days=5)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None}
    data.update(
        {
            "date_joined_0": "2026-01-01",
            "date_joined_1": "10:00",
            "vacation_until_0": "",
            "vacation_until_1": "",
            "vacation_days_used": "0",
        }
    )
    assert client.post(url, data).status_code == 302
    alice.refresh_from_db()
    assert alice.vacation_until is not None and alice.vacation_days_used == 5
    seat = Seat.objects.get(match=match, user=alice)
    assert seat.deadline is None and seat.paused_seconds is not None  # the vacation's end restarts it, as ever


def test_starting_or_ending_a_vacation_twice_says_why_nothing_changed(client, alice):
    """From a second tab, or a double click: the profile then shows no vacation form, so the
    refusal's reason was on no screen (a blank 400), and a second "end" said "Welcome back"."""
    client.force_login(alice)
    assert client.post(reverse("vacation"), {"days": "3"}).status_code == 302
    alice.refresh_from_db()
    until = alice.vacation_until
    response = client.post(reverse("vacation"), {"days": "5"})
    assert response.status_code == 400
    assert "You are on vacation already, so no new vacation was started." in response.content.decode()
    alice.refresh_from_db()
    assert alice.vacation_until == until and alice.vacation_days_used == 3

    assert "Welcome back" in client.post(reverse("vacation"), {"end": "1"}, follow=True).content.decode()
    page = client.post(reverse("vacation"), {"end": "1"}, follow=True).content.decode()
    assert "You are not on vacation, so nothing changed" in page and "Welcome back" not in page


def failure(user, channel: str, *, error: str, days_ago: float = 0) -> Notification:
    return Notification.objects.create(
        user=user,
        kind=Notification.Kind.YOUR_TURN,
        channel=channel,
        subject="Your turn",
        body="Play.",
        sent_at=timezone.now() - timedelta(days=days_ago),
        outcome=Notification.Outcome.FAILED,
        last_error=error,
    )


@pytest.mark.parametrize("new_url", ["https://hooks.example.com/new", ""])
def test_a_webhook_failure_leaves_the_profile_once_the_webhook_url_changes(client, alice, new_url):
    client.force_login(alice)
    client.post(reverse("profile"), profile_data())
    failure(alice, Notification.Channel.WEBHOOK, error="The webhook answered HTTP 404")
    failure(alice, Notification.Channel.EMAIL, error="No such mailbox")
    page = client.get(reverse("profile")).content.decode()
    assert "Messages we could not deliver" in page and "The webhook answered HTTP 404" in page

    assert client.post(reverse("profile"), profile_data(webhook_url=new_url)).status_code == 302
    page = client.get(reverse("profile")).content.decode()
    assert "The webhook answered HTTP 404" not in page
    assert "No such mailbox" in page, "the email address did not change"


def test_saving_the_profile_with_the_same_webhook_url_keeps_its_failures(client, alice):
    client.force_login(alice)
    client.post(reverse("profile"), profile_data())
    failure(alice, Notification.Channel.WEBHOOK, error="The webhook answered HTTP 404")
    client.post(reverse("profile"), profile_data(time_zone="Europe/Paris"))
    assert "The webhook answered HTTP 404" in client.get(reverse("profile")).content.decode()


def test_a_failure_at_the_new_webhook_url_is_shown(client, alice):
    client.force_login(alice)
    client.post(reverse("profile"), profile_data())
    failure(alice, Notification.Channel.WEBHOOK, error="The webhook answered HTTP 404")
    client.post(reverse("profile"), profile_data(webhook_url="https://hooks.example.com/new"))
    failure(alice, Notification.Channel.WEBHOOK, error="The webhook answered HTTP 410")
    page = client.get(reverse("profile")).content.decode()
    assert "HTTP 410" in page and "HTTP 404" not in page


def test_an_email_failure_leaves_the_profile_once_another_address_is_made_primary(client, alice):
    client.force_login(alice)
    failure(alice, Notification.Channel.EMAIL, error="No such mailbox")
    failure(alice, Notification.Channel.WEBHOOK, error="The webhook answered HTTP 404")
    assert "No such mailbox" in client.get(reverse("profile")).content.decode()
    EmailAddress.objects.create(user=alice, email="alice@new.example.com", verified=True)

    client.post(reverse("account_email"), {"action_primary": "", "email": "alice@new.example.com"})
    alice.refresh_from_db()
    assert alice.email == "alice@new.example.com"
    page = client.get(reverse("profile")).content.decode()
    assert "No such mailbox" not in page
    assert "The webhook answered HTTP 404" in page, "the webhook URL did not change"


def test_failures_older_than_thirty_days_are_not_shown(client, alice):
    client.force_login(alice)
    failure(alice, Notification.Channel.EMAIL, error="No such mailbox", days_ago=31)
    assert "Messages we could not deliver" not in client.get(reverse("profile")).content.decode()
    failure(alice, Notification.Channel.EMAIL, error="Mailbox full", days_ago=29)
    page = client.get(reverse("profile")).content.decode()
    assert "Mailbox full" in page and "No such mailbox" not in page
