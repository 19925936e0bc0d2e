"""Helpers and fixtures shared by the notification tests: beat's relay run by hand once the grace
for a task of their own has passed, the servers on 127.0.0.1 that deliveries go to (aiosmtpd,
an HTTP server), and what several of the tests look for in the outbox."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail

from notifications import tasks as notification_tasks
from tests.local_servers import MailServer, WebhookServer

SWEEP_GRACE = timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS + 1)


def sweep(clock) -> int:
    """Beat's relay, once its grace for a task of their own has passed."""
    clock.advance(seconds=SWEEP_GRACE.total_seconds())
    return notification_tasks.sweep_notifications()


def unsubscribe_path(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S*unsubscribe/\S+)", message.body).group(1)


def settle(clock) -> None:
    """Send what starting the match wrote (the invitation, the first "your turn") and forget it."""
    sweep(clock)
    mail.outbox.clear()


def extension_emails(user) -> list:
    return [
        message
        for message in mail.outbox
        if message.to == [user.email] and message.subject.startswith("Staff gave you")
    ]


def a_legal_move(match, seat: int) -> str:
    """One that ends the seat's turn (in Mancala a sowing may end in the player's store and play again)."""
    match.refresh_from_db()
    game, state = match.game_obj, match.game_obj.load(match.state)
    moves = game.legal_moves(state, seat)
    return next((move for move in moves if seat not in game.to_act(game.apply(state, seat, move))), moves[0])


@pytest.fixture
def mail_server(settings):
    with MailServer() as server:
        settings.MAILERS = server.mailer
        yield server


@pytest.fixture
def webhook(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # the test server listens on 127.0.0.1
    with WebhookServer() as server:
        yield server
