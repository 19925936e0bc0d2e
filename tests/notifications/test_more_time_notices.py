"""More time from staff: the notice names the new deadline on the player's clock (during a
vacation, the time left), follows the player's choice of emails and goes to the webhook, names
the deadline that holds when it goes out and is not sent once the turn is over; time given at
the last second, or a vacation begun then, holds against the timeout sweep."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.core import mail

from games import services, tasks
from games.models import DAY, Match, Seat
from notifications import selectors as notification_selectors
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import resending
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import SWEEP_GRACE, a_legal_move, extension_emails, settle, sweep


def test_staff_who_give_more_time_after_the_last_reminder_email_the_new_deadline_on_the_players_clock(
    clock, alice, bob
):
    """Both of Alice's reminders had gone out when staff gave her 24 more hours: no share of
    the turn was left to remind her of, so no email ever named her new deadline (only the
    move log said it), and she could think she had lost on time."""
    clock.now = datetime.fromisoformat("2026-11-20T10:00Z")
    alice.time_zone = "America/New_York"
    alice.save()
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.now = Seat.objects.get(match=match, number=0).deadline - timedelta(hours=1)
    assert notification_tasks.sweep_notifications() == 2, "half time and 80 %: every reminder of the turn"
    mail.outbox.clear()
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="Power cut")
    sweep(clock)

    deadline = Seat.objects.get(match=match, number=0).deadline.astimezone(zoneinfo.ZoneInfo("America/New_York"))
    [message] = extension_emails(alice)
    assert message.subject == f"Staff gave you 24 more hours in {match}"
    assert (
        f"your move is now due on {deadline:%A} {deadline.day} {deadline:%B %Y, %H:%M} EST (America/New York)"
    ) in " ".join(message.body.split())
    assert "unsubscribe" in message.body.lower(), "a game email, with its one-click unsubscribe"
    assert not extension_emails(bob), "Bob's clock did not move"


@pytest.mark.parametrize(("turn_notice", "emailed"), [("instant", True), ("digest", True), ("none", False)])
def test_the_notice_of_more_time_follows_the_players_choice_of_emails_and_goes_to_the_webhook(
    clock, alice, bob, webhook, turn_notice, emailed
):
    """Like a timeout it comes at once, also to a player of the daily digest, unless they chose no email."""
    alice.turn_notice, alice.webhook_url = turn_notice, webhook.url
    alice.save()
    match = start_timed_match(alice, bob)
    settle(clock)
    webhook.bodies.clear()
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=5, actor=None, reason="travel")
    sweep(clock)
    assert len(extension_emails(alice)) == (1 if emailed else 0)
    assert [body["content"].splitlines()[0] for body in webhook.bodies] == [f"Staff gave you 5 more hours in {match}"]


def test_the_notice_of_more_time_during_a_vacation_says_the_clock_is_stopped_and_how_much_is_left(clock, alice, bob):
    match = start_timed_match(alice, bob)  # two days per move
    settle(clock)
    services.vacation_start(user_id=alice.pk, days=3)
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=1, actor=None, reason="travel")
    sweep(clock)
    left = Seat.objects.get(match=match, number=0).paused_seconds
    assert left == 2 * DAY - SWEEP_GRACE.total_seconds() + 3600, "what was left when the vacation began, and the hour"
    [message] = extension_emails(alice)
    assert message.subject == f"Staff gave you 1 more hour in {match}"
    assert "Your clock is stopped while you are on vacation; when it runs again you have 2 d 0 h left." in " ".join(
        message.body.split()
    )


def test_a_notice_of_more_time_that_waited_names_the_deadline_then_or_is_not_sent_after_the_turn(clock, alice, bob):
    """Held back (the mail server down), the notice goes out naming the deadline that holds
    then (staff gave more again meanwhile), and not at all once the player has moved."""
    match = start_timed_match(alice, bob)
    settle(clock)
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="travel")
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=2, actor=None, reason="more travel")
    sweep(clock)
    deadline = Seat.objects.get(match=match, number=0).deadline
    sent = extension_emails(alice)
    assert sorted(message.subject for message in sent) == [
        f"Staff gave you 2 more hours in {match}",
        f"Staff gave you 24 more hours in {match}",
    ]
    assert all(f"due on {deadline:%A %-d %B %Y, %H:%M} UTC" in " ".join(message.body.split()) for message in sent)

    mail.outbox.clear()
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=3, actor=None, reason="again")
    services.move_submit(match_id=match.pk, user=alice, move=a_legal_move(match, 0), expected_version=0)
    sweep(clock)
    assert not extension_emails(alice)
    notice = Notification.objects.get(user=alice, channel="email", subject=f"Staff gave you 3 more hours in {match}")
    assert (notice.outcome, notice.last_error) == ("skipped", "The player's turn is over.")
    sent = Notification.objects.filter(user=alice, subject=f"Staff gave you 2 more hours in {match}")
    assert (
        notification_services.resend_refusal(notification_selectors.with_resend_facts(sent).get())
        == resending.NO_LONGER_THEIR_TURN
    ), "staff may not send it again: it names a deadline of a turn that is over"


def test_a_vacation_in_the_last_second_before_the_deadline_keeps_that_second_for_later(clock, alice, bob):
    match = start_timed_match(alice, bob)
    deadline = Seat.objects.get(match=match, number=0).deadline
    clock.now = deadline - timedelta(seconds=1)
    services.vacation_start(user_id=alice.pk, days=1)
    clock.now = deadline + timedelta(seconds=1)
    assert tasks.sweep_deadlines() == 0, "the clock is stopped"
    assert Seat.objects.get(match=match, number=0).paused_seconds == 1

    clock.now = deadline + timedelta(days=1)
    assert tasks.sweep_vacations() == 1
    assert Seat.objects.get(match=match, number=0).deadline == clock.now + timedelta(seconds=1)
    clock.advance(seconds=1)
    assert tasks.sweep_deadlines() == 1


@pytest.mark.parametrize("when", [timedelta(seconds=-1), timedelta(seconds=1)])
def test_staff_time_given_at_the_last_second_or_just_after_holds_against_the_timeout_sweep(clock, alice, bob, when):
    """A second before the deadline the turn has had its reminders (half time and 80 % sent;
    each comes once a turn); a second after, it ran out, and the time given is a new span
    with its reminders. Either way the sweep that comes next applies no timeout."""
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    deadline = Seat.objects.get(match=match, number=0).deadline
    clock.now = deadline + when
    assert notification_tasks.sweep_notifications() == 2
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="travel")
    clock.now = deadline + timedelta(seconds=30)
    assert tasks.sweep_deadlines() == 0
    assert Match.objects.get(pk=match.pk).status == "active"
    reminders = Notification.objects.filter(user=alice, match=match, kind="reminder", sent_at__isnull=True)
    assert reminders.count() == (0 if when < timedelta(0) else 2)
