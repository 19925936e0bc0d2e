"""Telling players of the messages written in their matches: one email a short while after a
message (a burst makes one), none while or after they read it on the match page, none of what
staff removed; the digest's line for digest players, nothing for those who want no email or
turned these off (the profile, the unsubscribe link); the webhook; the headers; Send again.

Time is moved by the ``clock`` fixture and beat's relay is called directly, as in
test_reminders.py and test_digests.py."""

from __future__ import annotations

import email
import re
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.urls import reverse

from accounts.services import user_deactivate
from chat import services as chat_services
from games import services
from games.models import Seat
from games.services import SeatSpec
from notifications import selectors as notification_selectors
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery, resending
from tests.conftest import signed_in, start_match
from tests.local_servers import WebhookServer

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def webhook(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # the test server listens on 127.0.0.1
    with WebhookServer() as server:
        yield server


@pytest.fixture
def delay(settings) -> int:
    return settings.MESSAGE_NOTICE_DELAY_SECONDS


def relay(clock, seconds: float) -> None:
    """Beat's relay after ``seconds``."""
    clock.advance(seconds=seconds)
    notification_tasks.sweep_notifications()


def told(user) -> list:
    """The emails telling ``user`` of messages."""
    return [m for m in mail.outbox if m.to == [user.email] and " wrote " in m.subject]


def write(match, user, text: str):
    return chat_services.message_post(match_id=match.pk, user=user, text=text)


@pytest.fixture
def mecca(alice, bob, carol):
    """Mecca among Alice, Bob, Carol and an AI, its invitations and first "your turn" sent."""
    seats = [
        SeatSpec("creator"),
        SeatSpec("user", username="bob"),
        SeatSpec("user", username="carol"),
        SeatSpec("ai", ai_level=1),
    ]
    match = services.match_create(creator=alice, game_slug="mecca", options={}, seats=seats)
    for user in (bob, carol):
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match


def test_one_message_emails_each_other_player_after_the_delay(clock, alice, bob, carol, mecca, delay):
    mail.outbox.clear()
    write(mecca, bob, "Good luck, all of you!")
    relay(clock, delay - 1)
    assert not told(alice) and not told(carol), "not at once: a burst of messages makes one email"

    relay(clock, 2)
    [to_alice], [to_carol] = told(alice), told(carol)
    assert not told(bob), "not the author"
    assert to_alice.subject == f"Bob wrote in Mecca #{mecca.pk}: Good luck, all of you!"
    assert "Good luck, all of you!" in to_alice.body and "Hello Alice," in to_alice.body
    assert f"/matches/{mecca.pk}/#messages" in to_alice.body
    assert to_carol.subject == to_alice.subject
    rows = Notification.objects.filter(kind=Notification.Kind.MESSAGE)
    assert sorted(rows.values_list("user__username", "outcome")) == [("alice", "sent"), ("carol", "sent")], (
        "none for the AI's seat"
    )


def test_a_closed_account_is_not_told(clock, alice, bob, staff, delay):
    match = start_match(alice, bob)
    services.match_resign(match_id=match.pk, user=alice)  # finished: Bob keeps his seat
    user_deactivate(user_id=bob.pk, actor=staff)
    mail.outbox.clear()
    write(match, alice, "gg")
    relay(clock, delay + 1)
    assert not Notification.objects.filter(kind=Notification.Kind.MESSAGE).exists()
    assert not told(bob)


def test_a_burst_of_five_messages_makes_one_email_listing_them_all(clock, alice, bob, match, delay):
    bob.time_zone = "Europe/Paris"
    bob.save()
    clock.now = datetime.fromisoformat("2026-11-20T10:00:00Z")
    for number in range(5):
        write(match, alice, f"line {number}")
        clock.advance(seconds=10)
    assert Notification.objects.filter(user=bob, kind=Notification.Kind.MESSAGE).count() == 1
    relay(clock, delay)

    [sent] = told(bob)
    assert sent.subject == f"Alice wrote 5 messages in Mancala #{match.pk}"
    listed = re.findall(r"^  line (\d)$", sent.body, re.M)
    assert listed == ["0", "1", "2", "3", "4"], sent.body
    assert "Alice, Fri 20 Nov, 11:00 CET:" in sent.body, "the time on Bob's clock"
    assert "more" not in sent.body


def test_at_most_ten_are_listed_then_how_many_more(clock, alice, bob, match, delay):
    for number in range(10):
        write(match, alice, f"line {number}")
    clock.advance(seconds=61)  # ten a minute at most
    for number in range(10, 13):
        write(match, alice, f"line {number}")
    relay(clock, delay)
    [sent] = told(bob)
    assert re.findall(r"^  line (\d+)$", sent.body, re.M) == [str(n) for n in range(10)]
    assert "… and 3 more on the match page." in sent.body


def test_a_player_who_opened_the_page_after_the_message_is_not_emailed(clock, alice, bob, match, delay, webhook):
    bob.webhook_url = webhook.url
    bob.save()
    write(match, alice, "ready?")
    clock.advance(seconds=40)
    assert signed_in(bob).get(reverse("match_detail", args=[match.pk])).status_code == 200
    relay(clock, delay)
    assert not told(bob) and not webhook.bodies
    assert set(Notification.objects.filter(user=bob, kind="message").values_list("outcome", "last_error")) == {
        ("skipped", "The player read them on the match page.")
    }


def test_a_player_still_on_the_page_is_not_emailed_one_who_left_before_a_later_message_is(
    clock, alice, bob, match, delay
):
    client = signed_in(bob)
    poll = reverse("match_poll", args=[match.pk])
    write(match, alice, "first")
    clock.advance(seconds=60)
    client.get(poll, {"token": "x"}, **HTMX)  # Bob's page shows "first"
    clock.advance(seconds=10)
    write(match, alice, "second")  # Bob closed the page before it came
    relay(clock, delay - 70 + 1)
    assert not told(bob), "held back while he might still be looking"
    relay(clock, notification_services.PRESENCE_SECONDS)
    [sent] = told(bob)
    assert "  second" in sent.body and "  first" not in sent.body, "only what he has not seen"
    assert sent.subject == f"Alice wrote in Mancala #{match.pk}: second"

    write(match, alice, "third")
    for _ in range(8):  # still on the page, polling
        clock.advance(seconds=30)
        client.get(poll, {"token": "x"}, **HTMX)
        notification_tasks.sweep_notifications()
    assert len(told(bob)) == 1


def test_digest_players_get_a_line_in_the_digest_and_no_email(clock, alice, bob, match, delay):
    clock.now = datetime.fromisoformat("2026-11-20T10:00Z")
    bob.turn_notice, bob.digest_hour = "digest", 8
    bob.save()
    for text in ("one", "two", "three"):
        write(match, alice, text)
    hidden = write(match, alice, "rude")
    chat_services.message_hide(message_id=hidden.pk, hidden=True)
    relay(clock, delay + 1)
    assert not told(bob)
    assert not Notification.objects.filter(user=bob, kind="message", channel="email").exists()

    digest = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    clock.now = digest.due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    [sent] = [m for m in mail.outbox if m.to == [bob.email]]
    assert sent.subject == "New messages in 1 match", "no turn of his waits (it is Alice's)"
    assert f"New messages in Mancala #{match.pk} (3)" in sent.body
    assert f"/matches/{match.pk}/#messages" in sent.body and "rude" not in sent.body

    clock.advance(hours=1)
    write(match, alice, "four")  # the next digest tells of what came since this one
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    clock.now = Notification.objects.get(user=bob, kind="digest", sent_at__isnull=True).due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    sent = [m for m in mail.outbox if m.to == [bob.email]][-1]
    assert sent.subject == "Your turn in 1 match; new messages in 1"
    assert f"New messages in Mancala #{match.pk} (1)" in sent.body


@pytest.mark.parametrize("off", ["no email", "message emails off"])
def test_a_player_who_wants_no_such_email_gets_none(clock, alice, bob, match, delay, off):
    if off == "no email":
        bob.turn_notice = "none"
    else:
        bob.message_emails = False
    bob.save()
    write(match, alice, "hello?")
    relay(clock, delay + 1)
    assert not told(bob)
    assert not Notification.objects.filter(user=bob, kind__in=["message", "digest"]).exists()


def test_the_profile_turns_them_off_and_so_does_the_emails_unsubscribe_link(clock, alice, bob, match, delay, client):
    bob.turn_notice = "digest"
    bob.save()
    profile = signed_in(bob).get(reverse("profile")).content.decode()
    assert "Email me when another player writes in my matches" in profile
    bob.turn_notice = "instant"
    bob.save()
    write(match, alice, "hello?")
    relay(clock, delay + 1)
    [sent] = told(bob)
    path = re.search(r"https?://[^/\s]+(/\S*unsubscribe/\S+)", sent.body).group(1)
    assert sent.extra_headers["List-Unsubscribe"].endswith(f"{path}>")
    asked = client.get(path).content.decode()
    assert "Stop emails when another player writes in your matches to Bob (bob@example.com)?" in asked
    client.post(path)
    bob.refresh_from_db()
    assert bob.message_emails is False and bob.turn_notice == "instant", "only these emails stop"
    assert "You are unsubscribed already" in client.get(path).content.decode()

    write(match, alice, "still there?")
    relay(clock, delay + 1)
    assert len(told(bob)) == 1


def test_messages_staff_removed_are_left_out_and_all_removed_sends_nothing(clock, alice, bob, match, delay):
    write(match, alice, "well played")
    rude = write(match, alice, "you cheat!!")
    chat_services.message_hide(message_id=rude.pk, hidden=True)
    relay(clock, delay + 1)
    [sent] = told(bob)
    assert "well played" in sent.subject and "cheat" not in sent.body + sent.subject

    gone = write(match, alice, "more rudeness")
    chat_services.message_hide(message_id=gone.pk, hidden=True)
    relay(clock, delay + 1)
    assert len(told(bob)) == 1
    assert Notification.objects.filter(user=bob, kind="message").latest("pk").last_error == (
        "Staff removed every message it told of."
    )


def test_the_webhook_gets_the_notice_too(clock, alice, bob, match, delay, webhook):
    bob.turn_notice, bob.webhook_url = "none", webhook.url
    bob.save()
    write(match, alice, "@everyone <b>hi</b>")
    relay(clock, delay + 1)
    [post] = webhook.bodies
    assert post["content"] == (
        f"Alice wrote in Mancala #{match.pk}: @everyone <b>hi</b>\nhttp://127.0.0.1:8000/matches/{match.pk}/#messages"
    )
    assert post["allowed_mentions"] == {"parse": []} and "&lt;b&gt;" in post["text"]
    assert not told(bob)


def test_the_email_joins_the_matchs_conversation_and_is_plain_text(clock, alice, bob, match, delay, settings):
    settings.SITE_URL = "https://boardgames.example.org"
    write(match, alice, "Tom O'Brien & <b>Co</b>\nsecond line")
    relay(clock, delay + 1)
    [sent] = told(bob)
    received = email.message_from_string(sent.message().as_string())
    assert received["References"] == received["In-Reply-To"] == f"<match-{match.pk}@boardgames.example.org>"
    assert received["Auto-Submitted"] == "auto-generated"
    assert not sent.alternatives, "no HTML part"
    assert "  Tom O'Brien & <b>Co</b>\n  second line\n" in sent.body
    assert sent.subject == f"Alice wrote in Mancala #{match.pk}: Tom O'Brien & <b>Co</b> second line"


def test_a_long_first_line_is_cut_short_in_the_subject(clock, alice, bob, match, delay):
    write(match, alice, "word " * 100)
    relay(clock, delay + 1)
    [sent] = told(bob)
    assert len(sent.subject) < 120 and sent.subject.endswith("…")


def test_a_message_written_while_its_notice_goes_out_gets_one_of_its_own(clock, alice, bob, match, delay, monkeypatch):
    write(match, alice, "first")
    real = delivery._deliver

    def deliver_while_alice_writes(notification):
        real(notification)
        if notification.kind == Notification.Kind.MESSAGE:
            write(match, alice, "second")  # after the email was written, before it was marked sent

    monkeypatch.setattr(delivery, "_deliver", deliver_while_alice_writes)
    relay(clock, delay + 1)
    monkeypatch.setattr(delivery, "_deliver", real)
    relay(clock, delay + 1)
    first, second = told(bob)
    assert "  first" in first.body and "second" not in first.body
    assert "  second" in second.body and "first" not in second.body


def test_staff_may_send_one_again_unless_it_quotes_a_message_removed_since(clock, alice, bob, match, delay):
    message = write(match, alice, "gg")
    relay(clock, delay + 1)
    sent = Notification.objects.get(user=bob, kind="message")
    facts = notification_selectors.with_resend_facts(Notification.objects.filter(pk=sent.pk)).get()
    assert notification_services.resend_refusal(facts) == ""
    notification_services.notification_resend(notification_id=sent.pk)
    notification_tasks.sweep_notifications()
    assert len(told(bob)) == 2

    chat_services.message_hide(message_id=message.pk, hidden=True)
    facts = notification_selectors.with_resend_facts(Notification.objects.filter(pk=sent.pk)).get()
    assert notification_services.resend_refusal(facts) == resending.QUOTES_A_REMOVED_MESSAGE

    bob.message_emails = False
    bob.save()
    chat_services.message_hide(message_id=message.pk, hidden=False)
    facts = notification_selectors.with_resend_facts(Notification.objects.filter(pk=sent.pk)).get()
    assert notification_services.resend_refusal(facts) == resending.EMAIL_NOT_WANTED


def test_an_invited_player_who_has_not_answered_is_told_too(clock, alice, bob, delay):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    mail.outbox.clear()
    write(match, alice, "fancy a game?")
    relay(clock, delay + 1)
    assert len(told(bob)) == 1
    assert Seat.objects.get(match=match, user=bob).accepted is False
