"""One-click unsubscribe: the link and the List-Unsubscribe headers of a game email (RFC 8058)
as they reach a real mail server, what the link's page asks and does, a forged link, the link
of a deleted account, and one opened while signed in as someone else."""

from __future__ import annotations

import re

from django.core import mail
from django.urls import reverse
from django.utils.html import strip_tags

from accounts import unsubscribe
from games import services
from notifications import tasks as notification_tasks
from tests.conftest import make_user
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import settle, sweep, unsubscribe_path


def test_a_your_turn_email_has_a_one_click_unsubscribe_link_and_headers(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert sweep(clock) >= 1
    message = next(m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject)
    path = unsubscribe_path(message)
    assert message.extra_headers["List-Unsubscribe"].endswith(f"{path}>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    asked = client.get(path).content.decode()
    assert "Unsubscribe" in asked, "GET only asks"
    # It names all it stops: timeouts, more time from staff, cancellations, messages and the digest stop too.
    assert (
        "Stop game emails (your turn, invitations, results, timeouts, more time from staff, cancellations, "
        "new messages, the daily digest) to Bob (bob@example.com)?"
    ) in asked, "says which and whose emails"
    bob.refresh_from_db()
    assert bob.turn_notice == "instant"
    done = client.post(path)
    assert done.status_code == 200 and f'in <a href="{reverse("profile")}">your profile</a>' in done.content.decode()
    bob.refresh_from_db()
    assert bob.turn_notice == "none"
    again = client.get(path).content.decode()  # the link opened once more: done, not asked again
    assert "You are unsubscribed already: you get no game emails (your turn," in again
    assert 'type="submit"' not in again.split("<main")[1]


def test_mail_clients_unsubscribe_with_the_rfc_8058_one_click_post(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    settle(clock)
    clock.advance(days=1, seconds=1)
    assert notification_tasks.sweep_notifications() == 1  # Alice's reminder at half time
    message = next(m for m in mail.outbox if "Time is running out" in m.subject)
    response = client.post(unsubscribe_path(message), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.reminders == "" and alice.turn_notice == "instant", "only reminders are stopped"
    assert match.pk


def test_a_forged_unsubscribe_link_changes_nothing(client, bob):
    assert client.post("/accounts/unsubscribe/not-a-token/").status_code == 404
    bob.refresh_from_db()
    assert bob.turn_notice == "instant"


def test_the_unsubscribe_link_of_a_deleted_account_says_it_is_not_valid(client, db):
    gone = make_user("gone")
    path = reverse("unsubscribe", args=[unsubscribe.make_token(gone.pk, unsubscribe.TURN_EMAILS)])
    gone.delete()
    for response in (client.get(path), client.post(path, {"List-Unsubscribe": "One-Click"})):
        assert response.status_code == 404 and "not valid" in response.content.decode()


def test_the_unsubscribe_header_reaches_the_mail_server_as_one_plain_url(clock, alice, bob, mail_server, settings):
    settings.SITE_URL = "https://boardgames.example.org"  # a real site's address makes the line longer than 78
    start_timed_match(alice, bob)
    assert sweep(clock) >= 1
    raw = mail_server.messages[0].original_content.decode()
    url = re.search(r"Unsubscribe with one click: (\S+)", raw.replace("=\r\n", "")).group(1)
    assert f"\r\nList-Unsubscribe: <{url}>\r\n" in raw, "not folded into =?utf-8?q?…?= encoded words"
    assert "\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw


def test_an_unsubscribe_link_opened_while_signed_in_as_someone_else_says_whose_emails_it_stops(alice, bob, client):
    path = reverse("unsubscribe", args=[unsubscribe.make_token(bob.pk, unsubscribe.TURN_EMAILS)])
    client.force_login(alice)
    asked = " ".join(strip_tags(client.get(path).content.decode()).split())
    assert "this link came in an email to another account than the one you are signed in with (Alice)" in asked
    done = client.post(path).content.decode()
    bob.refresh_from_db()
    alice.refresh_from_db()
    assert bob.turn_notice == "none" and alice.turn_notice == "instant", "the link acts on its own account only"
    assert "You can change this any time" not in done, "not next to a link to Alice's own profile"
