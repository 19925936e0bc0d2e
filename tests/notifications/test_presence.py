"""No email about a match the player is looking at: a "your turn" is skipped while the match page
is open (making moves counts as looking), held back for a player who closed it just before and
sent once the page has been quiet for 90 s; the page records presence at most once per half
minute."""

from __future__ import annotations

from datetime import timedelta

from django.core import mail
from django.urls import reverse

from games import services
from games.models import Seat
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import a_legal_move

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_no_your_turn_email_about_a_match_the_player_is_looking_at(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    client.force_login(bob)
    assert client.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, **HTMX).status_code == 204
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    assert notification_services.notification_send(notification_id=your_turn.pk) is False
    your_turn.refresh_from_db()
    assert your_turn.outcome == "skipped" and "looking at the match" in your_turn.last_error
    assert not [m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject]

    other = start_timed_match(alice, bob)  # a match Bob is not looking at is emailed
    services.move_submit(match_id=other.pk, user=alice, move="1", expected_version=0)
    elsewhere = Notification.objects.get(user=bob, match=other, kind=Notification.Kind.YOUR_TURN)
    assert notification_services.notification_send(notification_id=elsewhere.pk) is True

    clock.advance(minutes=5)  # Bob closed the page a while ago
    again = Notification.objects.create(user=bob, match=match, kind=Notification.Kind.YOUR_TURN, subject="s", body="b")
    assert notification_services.notification_send(notification_id=again.pk) is True


def test_a_your_turn_for_a_player_who_left_just_before_the_turn_goes_out_once_they_are_gone(clock, alice, bob, client):
    """Bob accepted, looked at the match and closed the page; Alice moved 20 s later. The
    email was skipped as "looking at the match" and never sent: Bob was not told at all."""
    match = start_timed_match(alice, bob)
    client.force_login(bob)
    client.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, **HTMX)
    seen = clock.now
    clock.advance(seconds=20)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)

    assert notification_services.notification_send(notification_id=your_turn.pk) is False
    your_turn.refresh_from_db()
    assert (your_turn.sent_at, your_turn.outcome, your_turn.attempts) == (None, "", 0), "held back, not skipped"
    assert your_turn.due_at == seen + timedelta(seconds=notification_services.PRESENCE_SECONDS)
    clock.advance(seconds=50)
    notification_tasks.sweep_notifications()
    assert not [m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject]

    clock.now = your_turn.due_at + timedelta(seconds=1)  # Bob's page sent nothing more: he is gone
    notification_tasks.sweep_notifications()
    your_turn.refresh_from_db()
    assert your_turn.outcome == "sent"
    assert len([m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject]) == 1


def test_a_your_turn_held_back_is_skipped_if_the_player_was_still_looking(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    client.force_login(bob)
    poll = reverse("match_poll", args=[match.pk])
    client.get(poll, {"token": match.poll_token}, **HTMX)
    clock.advance(seconds=20)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    assert notification_services.notification_send(notification_id=your_turn.pk) is False
    clock.advance(seconds=15)
    client.get(poll, {"token": "0-active"}, **HTMX)  # the page, still open, polls on: it shows "Your turn"

    clock.advance(seconds=60)
    notification_tasks.sweep_notifications()
    your_turn.refresh_from_db()
    assert your_turn.outcome == "skipped" and "looking at the match" in your_turn.last_error
    assert not [m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject]


def test_a_your_turn_held_back_into_the_next_turn_goes_out_once_the_page_is_quiet_after_that_turn_began(
    clock, alice, bob, client
):
    """Bob's "your turn" was held back (he had closed the page just before); still on the page,
    he moved, closed it, and Alice answered 10 s later. No second "your turn" is written while
    one waits, and the one waiting counted Bob's presence from its own turn: he had been on the
    page since it was written, so it was skipped as "looking at the match", and Bob, gone,
    heard nothing of a turn that could last two days."""
    match = start_timed_match(alice, bob)
    client.force_login(bob)
    client.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, **HTMX)
    clock.advance(seconds=20)
    services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=0)
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    assert notification_services.notification_send(notification_id=your_turn.pk) is False, "held back"
    clock.advance(seconds=20)
    client.post(reverse("match_move", args=[match.pk]), {"move": a_legal_move(match, 1), "version": "1"}, **HTMX)
    left = clock.now
    clock.advance(seconds=10)
    services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=2)
    assert Seat.objects.get(match=match, user=bob).to_act

    for _ in range(8):  # the relay, every half minute
        clock.advance(seconds=30)
        notification_tasks.sweep_notifications()
    told = [m for m in mail.outbox if m.to == ["bob@example.com"] and m.subject.startswith("Your turn")]
    assert len(told) == 1, "once the page had been quiet for 90 s"
    assert Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN).sent_at >= left + timedelta(
        seconds=notification_services.PRESENCE_SECONDS
    )


def test_the_page_records_presence_at_most_once_per_half_minute(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    client.force_login(bob)
    url = reverse("match_poll", args=[match.pk])
    client.get(url, {"token": "0-active"}, **HTMX)
    first = match.seats.get(user=bob).last_seen_at
    clock.advance(seconds=10)
    client.get(url, {"token": "0-active"}, **HTMX)
    assert match.seats.get(user=bob).last_seen_at == first
    clock.advance(seconds=25)
    client.get(url, {"token": "0-active"}, **HTMX)
    assert match.seats.get(user=bob).last_seen_at == clock.now


def test_making_moves_counts_as_looking_at_the_match(clock, alice, bob, client):
    """A player who clicks faster than the page polls (each redraw restarts the poll's timer)
    still has the match open: the AI's answer must not email them "your turn"."""
    match = start_timed_match(alice, bob)
    client.force_login(alice)
    client.post(reverse("match_move", args=[match.pk]), {"move": "1", "version": "0"}, **HTMX)
    assert match.seats.get(user=alice).last_seen_at == clock.now
