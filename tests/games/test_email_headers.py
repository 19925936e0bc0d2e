"""The headers a player's mail program reads on a game email: ``Auto-Submitted`` so that
vacation replies are not sent back (RFC 3834), a Message-ID of the site's own, a date and
the site's sender."""

from __future__ import annotations

import email

import pytest
from django.core import mail

from games import services
from games.services import SeatSpec
from tests.games.test_notifications import sweep

SITE = "boardgames.example.org"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = f"https://{SITE}"


def sent_to(user) -> list[email.message.Message]:
    """The messages sent to ``user`` as a mail program receives them."""
    return [email.message_from_string(message.message().as_string()) for message in mail.outbox
            if message.to == [user.email]]


def test_every_game_email_says_it_was_sent_automatically_with_a_date_and_the_sites_sender(clock, alice, bob):
    match = services.match_create(creator=alice, game_slug="mancala", options={},
                                  seats=[SeatSpec("creator"), SeatSpec("user", username="bob")])
    sweep(clock)  # the invitation
    services.match_accept(match_id=match.pk, user=bob)
    sweep(clock)  # Alice's turn
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    sweep(clock)  # Bob's turn
    services.match_resign(match_id=match.pk, user=bob)
    sweep(clock)

    received = sent_to(alice) + sent_to(bob)
    assert sorted(message["Subject"] for message in received) == sorted([
        f"Alice invites you to Mancala #{match.pk}", f"Your turn in Mancala #{match.pk}",
        f"Your turn in Mancala #{match.pk}", f"Mancala #{match.pk} is over: you won"])
    for message in received:
        assert message["Message-ID"].endswith(f"@{SITE}>")
        assert message["Auto-Submitted"] == "auto-generated", message["Subject"]
        assert message["Date"] and message["From"] == "Boardgames <noreply@boardgames.invalid>"
        assert message["Reply-To"] is None
