"""The headers a player's mail program reads on a game email: one conversation per match
(References and In-Reply-To name a root of the match, every Message-ID is the site's own),
none for the digest, which is about several matches; ``Auto-Submitted`` so that vacation
replies are not sent back (RFC 3834); a date and the site's sender."""

from __future__ import annotations

import email
from datetime import datetime, timedelta

import pytest
from django.core import mail

from games import services
from games.services import SeatSpec
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import settle, sweep

SITE = "boardgames.example.org"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = f"https://{SITE}"


def sent_to(user) -> list[email.message.Message]:
    """The messages sent to ``user`` as a mail program receives them."""
    return [
        email.message_from_string(message.message().as_string())
        for message in mail.outbox
        if message.to == [user.email]
    ]


def test_a_matchs_emails_are_one_conversation_with_ids_of_the_site(clock, alice, bob, carol):
    match = start_timed_match(alice, bob)
    other = start_timed_match(carol, bob)
    settle(clock)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=other.pk, user=carol, move="1", expected_version=0)
    sweep(clock)
    clock.advance(days=1, seconds=1)
    notification_tasks.sweep_notifications()  # Bob's reminders at half time
    services.match_resign(match_id=match.pk, user=alice)
    sweep(clock)

    received = sent_to(bob)
    about = {number: [m for m in received if f"Mancala #{number}" in m["Subject"]] for number in (match.pk, other.pk)}
    assert [m["Subject"] for m in about[match.pk]] == [
        f"Your turn in Mancala #{match.pk}",
        f"Time is running out in Mancala #{match.pk}",
        f"Mancala #{match.pk} is over: you won",
    ]
    for number, messages in about.items():
        for message in messages:
            assert message["References"] == message["In-Reply-To"] == f"<match-{number}@{SITE}>"
    ids = [message["Message-ID"] for message in received]
    assert len(set(ids)) == len(ids) == 5, "each email its own id"
    assert all(id_.startswith("<") and id_.endswith(f"@{SITE}>") for id_ in ids), ids


def test_the_digest_joins_no_match_conversation(clock, alice, bob, carol):
    clock.now = datetime.fromisoformat("2026-11-20T10:00Z")
    bob.turn_notice, bob.digest_hour = "digest", 8
    bob.save()
    first, second = start_timed_match(alice, bob), start_timed_match(carol, bob)
    services.move_submit(match_id=first.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=second.pk, user=carol, move="1", expected_version=0)
    settle(clock)
    clock.now = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST).due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()

    [digest] = sent_to(bob)
    assert digest["Subject"] == "Your turn in 2 matches"
    assert digest["References"] is None and digest["In-Reply-To"] is None
    assert digest["Message-ID"].endswith(f"@{SITE}>")


def test_an_email_staff_send_again_stays_in_its_matchs_conversation(clock, alice, bob):
    match = start_timed_match(alice, bob)
    settle(clock)
    services.match_resign(match_id=match.pk, user=alice)
    sweep(clock)
    over = Notification.objects.get(user=bob, kind=Notification.Kind.MATCH_OVER)
    notification_services.notification_resend(notification_id=over.pk)
    sweep(clock)

    first, again = sent_to(bob)
    assert first["Subject"] == again["Subject"] == f"Mancala #{match.pk} is over: you won"
    assert again["References"] == again["In-Reply-To"] == first["References"] == f"<match-{match.pk}@{SITE}>"
    assert again["Message-ID"] != first["Message-ID"], "a new email, not a duplicate a mail server would drop"


def test_every_game_email_says_it_was_sent_automatically_with_a_date_and_the_sites_sender(clock, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    sweep(clock)  # the invitation
    services.match_accept(match_id=match.pk, user=bob)
    sweep(clock)  # Alice's turn
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    sweep(clock)  # Bob's turn
    services.match_resign(match_id=match.pk, user=bob)
    sweep(clock)

    received = sent_to(alice) + sent_to(bob)
    assert sorted(message["Subject"] for message in received) == sorted(
        [
            f"Alice invites you to Mancala #{match.pk}",
            f"Your turn in Mancala #{match.pk}",
            f"Your turn in Mancala #{match.pk}",
            f"Mancala #{match.pk} is over: you won",
        ]
    )
    for message in received:
        assert message["Message-ID"].endswith(f"@{SITE}>")
        assert message["Auto-Submitted"] == "auto-generated", message["Subject"]
        assert message["Date"] and message["From"] == "Boardgames <noreply@boardgames.invalid>"
        assert message["Reply-To"] is None
