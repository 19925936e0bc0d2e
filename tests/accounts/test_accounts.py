"""Accounts through django-allauth: sign up, mandatory email confirmation, log in/out,
password reset and change, and the profile with its notification preference."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from accounts.forms import TIME_ZONE_NOT_TOLD, UNKNOWN_TIME_ZONE
from accounts.models import User
from games import services
from games.models import Match, Seat
from notifications.models import Notification
from tests.conftest import PASSWORD, make_user
from tests.games.conftest import start_timed_match

LINK = re.compile(r"https?://\S+")


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(
        reverse("account_signup"),
        {
            "email": email,
            "username": username,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def link_in(message) -> str:
    return LINK.findall(message.body)[0].replace("http://testserver", "")


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


def test_a_confirmation_link_used_already_is_not_only_called_invalid(client, db):
    """allauth cannot tell a used link from a wrong one; its page said "expired or is invalid"
    to a player who had just confirmed with it."""
    page = client.get(reverse("account_confirm_email", args=["not-a-key"])).content.decode()
    assert "This confirmation link has expired, is not valid, or was used already" in page
    assert f'<a href="{reverse("account_email")}">ask for a new confirmation email</a>' in page


def test_login_is_rate_limited(client, alice, settings):
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "3/m/ip,3/5m/key"}
    for _ in range(3):
        client.post(reverse("account_login"), {"login": "alice", "password": "wrong"})
    response = client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    assert response.status_code in (200, 429)
    assert client.get(reverse("dashboard")).status_code == 302, "locked out after too many failures"


def test_a_flood_of_other_counters_does_not_wipe_an_accounts_sign_in_limit(client, alice, settings):
    """The cache keeps the limits' counters. With Django's default of 300 entries, a third of
    them went at the 301st, so tries under many other names or addresses reset an account's count."""
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "3/5m/key"}
    for _ in range(3):
        client.post(reverse("account_login"), {"login": "alice", "password": "wrong"})
    for n in range(400):  # as many other names tried, each with its own counter
        cache.set(f"someone-else-{n}", 1, 300)

    client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})

    assert client.get(reverse("dashboard")).status_code == 302, "still locked out"


def test_the_admin_sign_in_is_rate_limited_as_the_sites_is(client, db, settings):
    """/admin/login/ took any number of wrong passwords for a staff account."""
    settings.ACCOUNT_RATE_LIMITS = {"login_failed": "3/m/ip,3/5m/key"}
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


def test_staff_renaming_a_player_meet_the_same_name_rules_as_the_profile(client, alice, bob, staff):
    """The user's admin page let staff call Alice "Bob": two players of one name, and an
    invitation to "Bob" found neither."""
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "10:00", "display_name": "bob"})
    response = client.post(url, data)
    assert response.status_code == 200 and "Another player is already called “Bob”" in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"
    data["display_name"] = "Alice  Smith"
    assert client.post(url, data).status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "Alice Smith"


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


def profile_data(**changes) -> dict:
    return {
        "display_name": "Alice",
        "time_zone": "UTC",
        "turn_notice": "instant",
        "digest_hour": "8",
        "reminders": "50,80",
        "webhook_url": "https://hooks.example.com/old",
        **changes,
    }


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


@pytest.mark.parametrize(
    ("name", "taken"), [("bob", "Bob"), (" BOB ", "Bob"), ("Bob", "Bob"), ("captain", "Captain"), ("DAVE", "dave")]
)
def test_profile_refuses_a_display_name_another_player_has(client, alice, bob, name, taken):
    """The refusal names the player as he writes his name, not as it was typed."""
    make_user("dave", display_name="Captain")
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400
    assert f"Another player is already called “{taken}”; choose another name." in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"


@pytest.mark.parametrize("name", ["Carol\u00a0Ann", "Carol  Ann", "Carol\u3000Ann", "Carol\u2009Ann", "Carol\tAnn"])
def test_a_name_that_differs_only_in_its_spaces_is_taken(client, alice, name):
    """A no-break, wide, thin or doubled space is drawn as a plain one: "Carol Ann" twice."""
    make_user("carol", display_name="Carol Ann")
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400
    assert "Another player is already called “Carol Ann”; choose another name." in response.content.decode()


def test_the_spaces_inside_a_name_are_saved_as_single_plain_spaces(client, alice):
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name="山田\u3000 太郎", webhook_url=""))
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "山田 太郎"


@pytest.mark.parametrize(
    "name, why",
    [
        ("AI (Strong)", "how the site labels seats"),
        ("ai", "how the site labels seats"),
        ("Player 2", "how the site labels seats"),
        ("players 1 and 2", "how the site labels seats"),
        ("Open   Seat", "how the site labels seats"),
        ("Bob\u200b", "invisible or control characters"),
        ("player2", "how the site labels seats"),
        ("AI_bot", "how the site labels seats"),
        ("Bo\u0431", "may not mix alphabets"),
        ("Ali\u0441e", "may not mix alphabets"),  # Cyrillic б, с
        ("\uff22\uff4f\uff42", "letter variants"),  # Ｂｏｂ in wide letters
        ("\u0410\u0406 (\u0415\u0430\u0455\u0443)", "how the site labels seats"),  # АІ (Еаѕу), all Cyrillic
        ("Al (Strong)", "may not contain brackets"),
        ("Bob (green)", "may not contain brackets"),
        ("\u0420\u04cf\u0430\u0443\u0435\u0433 2", "how the site labels seats"),  # Рӏауег 2, all Cyrillic
        ("-", "at least one letter or digit"),
        (". .", "at least one letter or digit"),
    ],
)
def test_profile_refuses_a_display_name_that_passes_for_a_seat_label_or_hides_characters(client, alice, name, why):
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400 and why in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"


@pytest.mark.parametrize("name", ["\u0410\u04cf\u0456\u0441\u0435", "\u0410\u04c0\u0406\u0421\u0415"])  # Аӏісе, АӀІСЕ
def test_a_name_in_look_alike_letters_of_another_players_is_refused(client, alice, carol, name):
    """All Cyrillic, so no alphabets are mixed, yet it reads "Alice"."""
    client.force_login(carol)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400 and "looks just like the name of another player" in response.content.decode()
    client.logout()
    response = sign_up(client, username=name)
    assert not User.objects.filter(username=name).exists()
    assert "looks just like the name of another player" in response.content.decode()


def test_a_latin_name_that_reads_as_another_players_name_in_other_letters_is_refused(client, alice, db):
    make_user("tor", display_name="\u0422\u043e\u0440")  # Тор, all Cyrillic: it reads "Top"
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name="Top", webhook_url=""))
    assert response.status_code == 400 and "looks just like the name of another player" in response.content.decode()
    assert client.post(reverse("profile"), profile_data(display_name="Tip", webhook_url="")).status_code == 302


@pytest.mark.parametrize(
    "name",
    [
        "Aiden",
        "Playful",
        "Opener",
        "Kai",
        "José",
        "Ελένη",
        "Владимир",
        "山田たろう",
        "ターナー",
        "Kealiʻi",
        "山田\u3000太郎",
        "Вова",
        "Al",
    ],
)
def test_names_that_only_begin_like_a_label_are_fine(client, alice, name):
    client.force_login(alice)
    assert client.post(reverse("profile"), profile_data(display_name=name, webhook_url="")).status_code == 302


@pytest.mark.parametrize(
    "username, why", [("player", "how the site labels seats"), ("Alic\u0435", "may not mix alphabets")]
)  # a Cyrillic е
def test_sign_up_refuses_a_username_that_is_a_seat_label_or_a_lookalike(client, alice, username, why):
    response = sign_up(client, username=username)
    assert response.status_code == 200 and not User.objects.filter(username=username).exists()
    assert why in response.content.decode()


def test_a_player_may_take_their_own_username_as_display_name(client, alice, bob):
    client.force_login(alice)
    assert client.post(reverse("profile"), profile_data(display_name=" ALICE ", webhook_url="")).status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "ALICE"


def test_the_profile_says_which_names_others_invite_by(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert (
        "Others invite you by your username, <strong>alice</strong>, or your display name, <strong>Alice</strong>."
    ) in page


def test_the_profile_links_to_ones_own_player_page(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert f'<a href="{reverse("player", args=["alice"])}">your player page</a>' in page


def test_the_invite_field_asks_for_a_username_or_display_name(client, alice):
    client.force_login(alice)
    assert "Username or display name to invite" in client.get(reverse("match_new", args=["mancala"])).content.decode()


@pytest.mark.parametrize("typed", ["captain", " CAPTAIN ", "DAVE", "captain  hook", "Captain\u00a0Hook"])
def test_a_player_is_invited_by_username_or_display_name(client, alice, typed):
    dave = make_user("dave", display_name="Captain Hook" if "hook" in typed.lower() else "Captain")
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "invite",
            "invite_1": typed,
        },
    )
    assert response.status_code == 302
    assert Match.objects.get().seats.get(number=1).user == dave


def test_inviting_a_name_no_player_has_is_refused_with_that_name(client, alice):
    make_user("dave", display_name="Captain")
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "invite",
            "invite_1": "Major",
        },
    )
    assert response.status_code == 400
    assert "There is no player called “Major”." in response.content.decode()
    assert not Match.objects.exists()


def test_the_email_page_reads_in_sentence_case_with_separate_tags(client, alice):
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    client.force_login(alice)
    html = client.get(reverse("account_email")).content.decode()
    tag = r'<span class="badge[^"]*">\s*{}\s*</span>'
    assert re.search(tag.format("Verified") + r"\s*" + tag.format("Primary"), html), "two tags, not 'Verified Primary'"
    assert "Make primary" in html and "Send the confirmation again" in html and "Re-send" not in html
    assert re.search(r'<button\s+class="secondary"[^>]*name="action_send"', html), "a minor button looks minor"


def test_sending_the_confirmation_again_too_soon_says_why_nothing_was_sent(client, alice):
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    client.force_login(alice)
    first = client.post(reverse("account_email"), {"email": "alice2@example.com", "action_send": ""}, follow=True)
    assert len(mail.outbox) == 1 and "No email was sent" not in first.content.decode()
    again = client.post(reverse("account_email"), {"email": "alice2@example.com", "action_send": ""}, follow=True)
    assert len(mail.outbox) == 1, "allauth sends at most one every 3 minutes"
    assert "No email was sent: a confirmation went to that address less than 3 minutes ago" in again.content.decode()


def test_a_confirmed_address_is_not_asked_to_confirm_again(client, alice):
    """allauth's page offers the button whichever address is chosen; for alice's confirmed
    address it sent "Please confirm your email address" all the same."""
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_send": ""}, follow=True)
    assert mail.outbox == []
    assert "alice@example.com is confirmed already, so no email was sent." in page.content.decode()
    assert EmailAddress.objects.get(user=alice, email="alice@example.com").verified


def test_making_the_primary_address_primary_says_it_is_already_and_changes_nothing(client, alice):
    """allauth said "Primary email address set" and told the owner the address had changed."""
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_primary": ""}, follow=True)
    html = page.content.decode()
    assert "alice@example.com is your primary address already, so nothing changed." in html
    assert "Primary email address set" not in html
    assert mail.outbox == [], "no 'your email address has changed' notice"
    alice.refresh_from_db()
    assert alice.email == "alice@example.com" and alice.email_changed_at is None
    assert EmailAddress.objects.get(user=alice, primary=True).email == "alice@example.com"


def test_confirming_an_added_address_while_signed_in_goes_back_to_the_email_page(client, alice):
    client.force_login(alice)
    client.post(reverse("account_email"), {"email": "alice2@example.com", "action_add": ""})
    confirm_url = link_in(mail.outbox[0])
    response = client.post(confirm_url)
    assert response.status_code == 302 and response["Location"] == reverse("account_email"), "not to My matches"
    assert EmailAddress.objects.get(user=alice, email="alice2@example.com").verified
    assert "You have confirmed alice2@example.com." in client.get(response["Location"]).content.decode()


def test_the_email_page_still_needs_a_signed_in_player(client, db):
    response = client.get(reverse("account_email"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_the_last_confirmed_address_cannot_be_removed(client, alice):
    """Removed, it left an account nobody could sign in to (confirmation is mandatory) nor reset."""
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_remove": ""}, follow=True)
    assert EmailAddress.objects.filter(user=alice, email="alice@example.com", verified=True).exists()
    assert "alice@example.com stays: it is your main confirmed address" in page.content.decode()

    spare = EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    html = client.get(reverse("account_email")).content.decode()
    assert re.search(r'<button\s+class="danger"[^>]*name="action_remove"', html), "Remove looks like what it does"
    client.post(reverse("account_email"), {"email": spare.email, "action_remove": "", "confirmed": "yes"})
    assert not EmailAddress.objects.filter(pk=spare.pk).exists(), "a second, unconfirmed address can go"


def test_removing_an_address_asks_first_also_without_javascript(client, alice):
    """Without JavaScript one click on Remove took the address off at once: only a script asked first."""
    spare = EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    asked = client.post(reverse("account_email"), {"email": spare.email, "action_remove": ""})
    assert asked.status_code == 200
    assert EmailAddress.objects.filter(pk=spare.pk).exists(), "asked, not removed"
    assert mail.outbox == [], "no 'address removed' notice"
    html = asked.content.decode()
    assert "Remove alice2@example.com from your account?" in html
    form = re.search(r'<form[^>]*action="{}".*?</form>'.format(reverse("account_email")), html, re.S).group()
    assert 'name="email" value="alice2@example.com"' in form and 'name="confirmed" value="yes"' in form
    assert re.search(r'<button\s+class="danger"[^>]*name="action_remove"', form)
    # A No goes back to the list; under the button, as the close-account page has it (4 px beside it).
    assert re.search(
        r'</form>\s*<p><a class="own-line" href="{}">Keep it</a></p>'.format(reverse("account_email")), html
    )

    page = client.post(
        reverse("account_email"), {"email": spare.email, "action_remove": "", "confirmed": "yes"}, follow=True
    )
    assert not EmailAddress.objects.filter(pk=spare.pk).exists()
    assert "Removed email address alice2@example.com." in page.content.decode()
    assert [m.to for m in mail.outbox] == [["alice@example.com"]], "the owner is told, at the address that stays"


def test_an_address_that_may_not_go_is_not_asked_about(client, alice):
    """The primary address (and the last confirmed one) stays: Remove says so at once, not after a Yes."""
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_remove": ""}, follow=True)
    html = page.content.decode()
    assert "from your account?" not in html
    assert "alice@example.com stays: it is your main confirmed address" in html
    assert EmailAddress.objects.filter(user=alice, email="alice@example.com", primary=True).exists()


def test_a_single_confirmed_address_gets_no_buttons_that_would_do_nothing(client, alice):
    client.force_login(alice)
    html = client.get(reverse("account_email")).content.decode()
    assert "alice@example.com" in html and "Add email" in html
    for action in ("action_primary", "action_send", "action_remove"):
        assert f'name="{action}"' not in html, action
    assert 'type="radio"' not in html, "nothing to choose between, so no radio button"
    assert re.search(r'<p class="lone-email">\s*alice@example.com\s.*Verified.*Primary', html, re.S)
    assert "This email address belongs to your account" in html  # one address, not "the following addresses"
