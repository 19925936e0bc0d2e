"""Nothing goes out that stopped being true while it waited: no "your turn" or reminder of a turn
that ended, no invitation to a match that was cancelled, nothing to a deactivated player or to
a webhook removed meanwhile; a "your turn" that waited through a whole turn tells of the turn
it goes out in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games import services, tasks
from games.models import Seat
from games.services import SeatSpec
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import a_legal_move, settle, sweep


@pytest.mark.parametrize(
    "turn_ends",
    [
        "she moves",
        "she resigns",
        "she resigns from three",
        "staff give her seat to the AI",
        "her time runs out among three",
        "staff abort the match",
    ],
)
def test_nothing_of_a_turn_that_ended_goes_out_after_it(clock, alice, bob, carol, turn_ends):
    """Alice's "your turn" and her half-time reminder wait to go out (the sweep had not come
    round) when her turn ends: by her move, resigning, the AI taking her seat or the match
    being cancelled. Neither reaches her afterwards, nor is any other reminder of that turn."""
    three = "three" in turn_ends or "staff give" in turn_ends
    match = start_timed_match(alice, bob, carol, game="jeexa") if three else start_timed_match(alice, bob)
    deadline = Seat.objects.get(match=match, number=0).deadline
    clock.advance(days=1, seconds=10)  # half time was 10 s ago; nothing has been swept yet
    pending = Notification.objects.filter(user=alice, match=match, sent_at__isnull=True)
    assert set(pending.values_list("kind", flat=True)) == {"your_turn", "reminder"}
    if turn_ends == "she moves":
        services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=0)
    elif turn_ends.startswith("she resigns"):
        services.match_resign(match_id=match.pk, user=alice)
    elif turn_ends == "staff give her seat to the AI":
        services.seat_replace_by_ai(match_id=match.pk, seat_number=0, level=1, actor=None, reason="Away")
    elif turn_ends == "her time runs out among three":
        clock.now = deadline + timedelta(seconds=1)
        assert tasks.sweep_deadlines() == 1
    else:
        services.match_abort(match_id=match.pk, actor=None, reason="")

    clock.now = deadline + timedelta(days=1)
    notification_tasks.sweep_notifications()
    told = [m.subject for m in mail.outbox if m.to == ["alice@example.com"]]
    assert not [subject for subject in told if subject.startswith(("Your turn", "Time is running out"))], told


def test_a_your_turn_that_waited_through_a_whole_turn_tells_of_the_turn_it_goes_out_in(clock, alice, bob, monkeypatch):
    """Bob's "your turn" could not be sent (the mail server was down) and waited to be tried
    again; meanwhile he moved on the site and Alice moved again. One unsent "your turn" per
    match is enough, so no second was written, and the first went out as written a day
    before: Alice's first move, and a deadline long past."""
    match = start_timed_match(alice, bob)
    settle(clock)
    services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=0)
    your_turn = Notification.objects.get(user=bob, match=match, kind="your_turn", channel="email")
    deliver = delivery._deliver

    def mail_server_down(notification):
        raise OSError("Connection refused")

    monkeypatch.setattr(delivery, "_deliver", mail_server_down)
    with pytest.raises(OSError):
        notification_services.notification_send(notification_id=your_turn.pk)
    monkeypatch.setattr(delivery, "_deliver", deliver)

    clock.advance(hours=20)
    services.move_submit(match_id=match.pk, user=bob, move=a_legal_move(match, 1), expected_version=1)
    clock.advance(hours=4)
    services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=2)
    assert Notification.objects.filter(user=bob, match=match, kind="your_turn", channel="email").count() == 1
    sweep(clock)

    [email] = [m for m in mail.outbox if m.to == ["bob@example.com"] and m.subject.startswith("Your turn")]
    latest = match.moves.order_by("ply").last()
    deadline = Seat.objects.get(match=match, number=1).deadline
    assert f"- {latest.description}\n" in email.body
    assert f"Your time runs out on {deadline:%A %-d %B %Y, %H:%M} UTC;" in email.body


def test_a_webhook_removed_meanwhile_gets_nothing_and_no_failure_on_the_profile(clock, alice, bob, webhook, client):
    alice.webhook_url = webhook.url
    alice.save()
    start_timed_match(alice, bob)  # "your turn" and reminders, by email and webhook
    pending = Notification.objects.filter(user=alice, channel="webhook", sent_at__isnull=True)
    assert pending.exists()
    alice.webhook_url = ""  # as the profile saves it
    alice.save()

    clock.advance(days=2)
    notification_tasks.sweep_notifications()

    rows = Notification.objects.filter(user=alice, channel="webhook")
    assert set(rows.values_list("outcome", flat=True)) == {Notification.Outcome.SKIPPED}
    assert set(rows.values_list("last_error", flat=True)) == {"The player removed the webhook."}
    assert not webhook.bodies
    client.force_login(alice)
    assert "Messages we could not deliver" not in client.get(reverse("profile")).content.decode()


def test_a_deactivated_player_gets_no_game_messages(clock, alice, bob, webhook):
    # Staff deactivate a player they may not delete (seats protect them): the messages already
    # written, your turn, reminders and webhook posts alike, must not reach them any more.
    alice.webhook_url = webhook.url
    alice.save()
    start_timed_match(alice, bob)
    assert Notification.objects.filter(user=alice, sent_at__isnull=True).count() >= 4
    alice.is_active = False
    alice.save()

    clock.advance(days=2)
    notification_tasks.sweep_notifications()

    rows = Notification.objects.filter(user=alice)
    assert set(rows.values_list("outcome", flat=True)) == {Notification.Outcome.SKIPPED}
    assert set(rows.values_list("last_error", flat=True)) == {delivery.PLAYER_DEACTIVATED}
    assert not [message for message in mail.outbox if message.to == ["alice@example.com"]]
    assert not webhook.bodies


def test_an_invitation_held_back_until_the_match_is_cancelled_is_not_sent(alice, bob, carol):
    """A mail server down held Carol's invitation; the match was cancelled meanwhile, and the
    invitation went out after the cancellation notice, inviting her to a match that was gone."""
    match = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("user", username="carol")],
    )
    to_bob, to_carol = (
        Notification.objects.get(match=match, user=user, kind=Notification.Kind.INVITATION) for user in (bob, carol)
    )
    assert notification_services.notification_send(notification_id=to_bob.pk) is True  # still open: it goes out

    services.match_decline(match_id=match.pk, user=bob)

    assert notification_services.notification_send(notification_id=to_carol.pk) is False
    to_carol.refresh_from_db()
    assert to_carol.outcome == "skipped" and "no longer open" in to_carol.last_error
    assert not [m for m in mail.outbox if m.to == ["carol@example.com"] and "invit" in m.subject.lower()]
