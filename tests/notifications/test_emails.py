"""What the game emails say: the deadline on the player's clock, the latest moves (and how many
were left out), the match named with its options, the clock an invitation asks to agree to,
plain text that is not HTML-escaped; and a mail server on 127.0.0.1 (aiosmtpd) that refuses:
retried with backoff, or a permanent failure shown in the profile."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.urls import reverse

from games import services
from games.models import Seat
from games.services import SeatSpec
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.conftest import make_user
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import settle, sweep


def test_a_your_turn_email_says_when_the_time_runs_out_in_the_players_time_zone(clock, alice, bob):
    clock.now = datetime.fromisoformat("2026-11-20T10:00Z")  # winter time (CET): the test ran on the day's date
    bob.time_zone = "Europe/Paris"
    bob.save()
    match = start_timed_match(alice, bob)  # two days a move: Bob loses if his clock runs out
    settle(clock)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    deadline = Seat.objects.get(match=match, user=bob).deadline.astimezone(zoneinfo.ZoneInfo("Europe/Paris"))
    body = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN, channel="email").body
    assert (
        f"Your time runs out on {deadline:%A} {deadline.day} {deadline:%B %Y, %H:%M} CET (Europe/Paris); "
        "then you lose the match."
    ) in body


def test_a_your_turn_email_that_lists_only_the_latest_lines_says_how_many_it_left_out(clock, alice, bob, staff):
    match = start_timed_match(alice, bob)
    settle(clock)  # Alice's first "your turn" is sent: the next one is written anew
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    for _ in range(13):
        services.seat_deadline_extend(match_id=match.pk, seat_number=1, hours=1, actor=staff, reason="Storm")
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    body = Notification.objects.filter(user=alice, kind=Notification.Kind.YOUR_TURN).latest("pk").body
    assert "The latest moves since your last move (12 of 14; the match page lists them all):" in body
    assert body.count("\n- ") == 12


@pytest.mark.parametrize(
    ("game", "options", "name"),
    [
        ("mecca", {}, "Mecca #{pk}"),  # no options: no empty brackets
        ("mancala", {"variant": "kalah"}, "Mancala #{pk} (Kalah)"),
        ("mesopotamia", {"discard": "remove"}, "Mesopotamia #{pk} (No starting card, played cards removed)"),
    ],
)
def test_a_notice_names_the_match_with_its_options_in_words(alice, bob, game, options, name):
    match = start_timed_match(alice, bob, game=game, options=options)
    invitation = Notification.objects.get(match=match, user=bob, kind=Notification.Kind.INVITATION)
    assert f"invites you to play {name.format(pk=match.pk)}." in invitation.body


def test_an_invitation_says_the_clock_before_the_player_accepts(alice, bob, client):
    """A player agrees to the clock by accepting: the email, the lobby's list of invitations
    and its open challenges say it (it showed only once the match page was opened)."""
    match = start_timed_match(alice, bob)
    invitation = Notification.objects.get(match=match, user=bob, kind=Notification.Kind.INVITATION)
    assert match.clock_terms.startswith("2 days per move; when a clock runs out: ")
    assert f"Clock: {match.clock_terms}." in invitation.body

    waiting = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob")],
        clock=services.ClockSpec(time_control="per_move", days_per_move=2),
    )
    challenge = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("open")],
        clock=services.ClockSpec(time_control="bank", bank_initial_days=3, bank_increment_days=1, bank_cap_days=5),
    )
    client.force_login(bob)
    lobby = client.get(reverse("lobby")).content.decode()
    invited = lobby[lobby.index(f"Mancala #{waiting.pk}</a>") :]
    assert invited.index(waiting.clock_terms) < invited.index("Accept")
    offered = lobby[lobby.index(f"Mancala #{challenge.pk}</a><br>") :]
    assert offered.index("Time bank: 3 days, +1 day per move, at most 5 days; when a clock runs out: ") < offered.index(
        "Join"
    )


def test_plain_text_notices_are_not_html_escaped(alice, db):
    rival = make_user("obrien", display_name="Tom O'Brien & Co <3")
    match = services.match_create(
        creator=rival, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="alice")]
    )
    services.match_decline(match_id=match.pk, user=alice)
    services.match_create(
        creator=rival, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="alice")]
    )
    invitation = Notification.objects.get(user=alice, kind=Notification.Kind.INVITATION, match__status="open")
    assert "Tom O'Brien & Co <3" in invitation.body and "&#x27;" not in invitation.body
    declined = Notification.objects.get(user=rival, kind=Notification.Kind.MATCH_OVER)
    assert "Alice declined the invitation" in declined.body


def test_a_refusing_mail_server_is_retried_with_backoff_until_it_accepts(clock, alice, bob, mail_server):
    match = start_timed_match(alice, bob)
    notification_tasks.sweep_notifications()  # nothing yet: the invitation is still within its task's grace
    Notification.objects.exclude(kind=Notification.Kind.REMINDER).update(sent_at=clock.now, outcome="sent")
    mail_server.refuse_next = 2
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)

    assert sweep(clock) == 0
    your_turn.refresh_from_db()
    assert your_turn.attempts == 1 and "451" in your_turn.last_error and your_turn.sent_at is None
    assert your_turn.due_at == clock.now + timedelta(seconds=30), "first backoff: 30 s"
    assert notification_tasks.sweep_notifications() == 0, "not before the backoff"
    clock.advance(seconds=31)
    assert notification_tasks.sweep_notifications() == 0
    your_turn.refresh_from_db()
    assert your_turn.attempts == 2 and your_turn.due_at == clock.now + timedelta(seconds=60), "then 60 s"
    clock.advance(seconds=61)
    assert notification_tasks.sweep_notifications() == 1
    assert notification_tasks.sweep_notifications() == 0

    assert mail_server.refused == 2
    assert len(mail_server.messages) == 1 and mail_server.messages[0].rcpt_tos == ["bob@example.com"]
    assert b"List-Unsubscribe:" in mail_server.messages[0].original_content
    your_turn.refresh_from_db()
    assert your_turn.outcome == "sent" and your_turn.attempts == 3 and your_turn.last_error == ""


def test_an_address_the_mail_server_refuses_for_good_is_not_retried_and_is_shown_in_the_profile(
    clock, alice, bob, mail_server, client
):
    bob.email = "bounce@example.com"
    bob.save()
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    sweep(clock)
    clock.advance(hours=1)
    sweep(clock)
    failed = Notification.objects.filter(user=bob, outcome="failed")
    assert failed.exists() and all(n.attempts == 1 for n in failed)
    assert "550" in failed.first().last_error
    client.force_login(bob)
    page = client.get(reverse("profile")).content.decode()
    assert "Messages we could not deliver" in page and "No such mailbox" in page
