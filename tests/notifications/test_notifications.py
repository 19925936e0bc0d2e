"""How players are told: at once, in a daily digest or not at all; reminders before a clock
runs out; a webhook; one-click unsubscribe; no email about a match the player is looking at;
a mail server or webhook that fails is retried with backoff, a permanent failure is shown.

Deliveries go to real servers on 127.0.0.1 (aiosmtpd, an HTTP server); time is moved
forward by the ``clock`` fixture."""

from __future__ import annotations

import logging
import re
import socket
import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from accounts import unsubscribe
from accounts.models import User
from config import webhooks
from games import selectors, services, tasks
from games.models import DAY, Match, Seat
from games.services import SeatSpec
from notifications import selectors as notification_selectors
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery, resending
from tests.conftest import make_user
from tests.games.conftest import start_timed_match
from tests.local_servers import MailServer, WebhookServer

HTMX = {"HTTP_HX_REQUEST": "true"}
SWEEP_GRACE = timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS + 1)


def sweep(clock) -> int:
    """Beat's relay, once its grace for a task of their own has passed."""
    clock.advance(seconds=SWEEP_GRACE.total_seconds())
    return notification_tasks.sweep_notifications()


def unsubscribe_path(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S*unsubscribe/\S+)", message.body).group(1)


def stretch_the_turn(clock, match, alice, stretch: str) -> None:
    """Staff give Alice (seat 0) 24 more hours, or a day's vacation stops her clock and ends."""
    if stretch == "extension":
        services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="travel")
    else:
        services.vacation_start(user_id=alice.pk, days=1)
        clock.advance(days=1, seconds=1)
        assert tasks.sweep_vacations() == 1


def settle(clock) -> None:
    """Send what starting the match wrote (the invitation, the first "your turn") and forget it."""
    sweep(clock)
    mail.outbox.clear()


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


def test_reminders_go_out_at_half_and_80_percent_of_the_time_and_stop_when_the_player_moves(clock, alice, bob):
    started = clock.now
    match = start_timed_match(alice, bob)
    due = sorted(
        Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER).values_list("due_at", flat=True)
    )
    assert due == [started + timedelta(days=1), started + timedelta(days=1.6)]
    settle(clock)

    clock.advance(hours=23)
    assert notification_tasks.sweep_notifications() == 0, "not yet due"
    clock.advance(hours=1, seconds=1)
    assert notification_tasks.sweep_notifications() == 1
    assert notification_tasks.sweep_notifications() == 0, "sent once"
    assert [m.subject for m in mail.outbox] == [f"Time is running out in {match}"]
    assert "When it runs out: you lose the match." in mail.outbox[0].body

    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert not Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER, sent_at__isnull=True).exists()
    assert Notification.objects.filter(user=bob, kind=Notification.Kind.REMINDER, sent_at__isnull=True).count() == 2


@pytest.mark.parametrize("how", ["profile", "unsubscribe link"])
def test_reminders_written_before_the_player_turned_them_off_are_not_sent(clock, alice, bob, client, how):
    match = start_timed_match(alice, bob)
    settle(clock)
    assert Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER).count() == 2
    if how == "profile":
        client.force_login(alice)
        client.post(
            reverse("profile"),
            {
                "display_name": "",
                "time_zone": "UTC",
                "turn_notice": "instant",
                "digest_hour": "8",
                "reminders": "",
                "webhook_url": "",
            },
        )
    else:
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
        services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)  # a reminder mail to follow
        settle(clock)
        clock.advance(days=1, seconds=1)
        notification_tasks.sweep_notifications()
        client.post(unsubscribe_path(next(m for m in mail.outbox if "Time is running out" in m.subject)))
        mail.outbox.clear()

    clock.advance(days=2)
    notification_tasks.sweep_notifications()

    assert not [m.subject for m in mail.outbox if m.to == ["alice@example.com"]]
    alice.refresh_from_db()
    assert alice.reminders == ""


def test_changed_reminder_settings_count_for_the_turn_running_now(clock, alice, bob, client):
    started = clock.now
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    client.force_login(alice)
    settings_with = {
        "display_name": "",
        "time_zone": "UTC",
        "turn_notice": "instant",
        "digest_hour": "8",
        "webhook_url": "",
    }

    client.post(reverse("profile"), {**settings_with, "reminders": "80"})  # half time no more
    due = list(
        Notification.objects.filter(
            user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
        ).values_list("due_at", flat=True)
    )
    assert due == [started + timedelta(days=1.6)]

    clock.advance(days=1, hours=1)
    client.post(reverse("profile"), {**settings_with, "reminders": "50,80,95"})  # half time has passed
    due = sorted(
        Notification.objects.filter(
            user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
        ).values_list("due_at", flat=True)
    )
    assert due == [started + timedelta(days=1.6), started + timedelta(days=1.9)], "none late, none twice"


def test_a_reminder_due_but_not_yet_sent_survives_a_settings_change(clock, alice, bob, client):
    """The sweep sends what is due every half minute: a profile saved in between deleted the
    half-time reminder, and it was not written again, its time being past."""
    started = clock.now
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.now = started + timedelta(days=1, seconds=10)  # half time, before the sweep's next round
    client.force_login(alice)
    client.post(
        reverse("profile"),
        {
            "display_name": "Alice",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "webhook_url": "",
            "reminders": "50,80",
        },
    )
    notification_tasks.sweep_notifications()
    half_time = Notification.objects.get(
        user=alice, match=match, kind=Notification.Kind.REMINDER, due_at=started + timedelta(days=1)
    )
    assert half_time.outcome == "sent"
    assert Notification.objects.filter(user=alice, match=match, kind=Notification.Kind.REMINDER).count() == 2


@pytest.mark.parametrize("stretch", ["extension", "vacation"])
def test_reminders_count_from_the_last_restart_of_the_clock_also_after_a_settings_change(
    clock, alice, bob, client, stretch
):
    """After staff gave more time, or a vacation ended, the reminders count from that moment
    to the new deadline, and a change of settings keeps that reference (it once went back to
    the turn's start: "half time" moved by hours)."""
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.advance(hours=12)
    stretch_the_turn(clock, match, alice, stretch)  # 36 hours left when a vacation stops the clock
    restarted = clock.now
    deadline = Seat.objects.get(match=match, number=0).deadline
    pending = Notification.objects.filter(
        user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
    )
    expected = [restarted + (deadline - restarted) * share for share in (0.5, 0.8)]
    assert sorted(pending.values_list("due_at", flat=True)) == expected

    client.force_login(alice)
    client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "webhook_url": "",
            "reminders": "50,80",
        },
    )
    assert sorted(pending.values_list("due_at", flat=True)) == expected, "the same reminders, at the same times"


@pytest.mark.parametrize("stretch", ["extension", "vacation"])
def test_a_share_of_the_turn_is_reminded_of_once_also_when_the_deadline_moves(clock, alice, bob, client, stretch):
    """Half time came and its reminder went; then staff gave more time, or a vacation stopped
    the clock: the reminders restarted, and "time is running out" came at half time again.
    Now only the shares not reached yet (80 %) come, counted to the new deadline, also after
    a change of settings; the next turn has all of them again."""
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.advance(days=1, seconds=1)
    assert notification_tasks.sweep_notifications() == 1, "half time"
    clock.advance(hours=6)
    stretch_the_turn(clock, match, alice, stretch)
    restarted = clock.now
    deadline = Seat.objects.get(match=match, number=0).deadline
    pending = Notification.objects.filter(
        user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
    )
    assert list(pending.values_list("due_at", flat=True)) == [restarted + (deadline - restarted) * 0.8]
    client.force_login(alice)
    client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "webhook_url": "",
            "reminders": "50,80,95",
        },
    )
    assert sorted(pending.values_list("due_at", flat=True)) == [
        restarted + (deadline - restarted) * share for share in (0.8, 0.95)
    ], "half time is not written again"

    clock.now = deadline - timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    reminded = [m.subject for m in mail.outbox if m.to == ["alice@example.com"] and m not in extension_emails(alice)]
    assert reminded == [f"Time is running out in {match}"] * 3, "50 %, then 80 % and 95 % of the longer turn"

    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    assert pending.count() == 3, "a new turn: every share again"


def test_staff_who_give_time_to_a_turn_that_ran_out_bring_its_reminders_for_the_new_deadline(clock, alice, bob):
    """Alice's deadline passed before the timeout sweep came; staff gave her 24 hours. Every
    share counted as come (the old deadline was past), so she heard nothing of the new
    deadline: the reminders she had all named one that is gone."""
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.now = Seat.objects.get(match=match, number=0).deadline + timedelta(seconds=10)
    assert notification_tasks.sweep_notifications() == 2, "half time and 80 % of the first deadline"
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="travel")
    restarted, deadline = clock.now, Seat.objects.get(match=match, number=0).deadline
    pending = Notification.objects.filter(
        user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
    )
    assert sorted(pending.values_list("due_at", flat=True)) == [
        restarted + (deadline - restarted) * share for share in (0.5, 0.8)
    ]

    mail.outbox.clear()
    clock.now = deadline - timedelta(seconds=1)
    assert notification_tasks.sweep_notifications() == 3, "the notice of the time given, then half time and 80 %"
    assert all(f"on {deadline:%A %-d %B %Y, %H:%M} UTC." in message.body for message in mail.outbox), (
        "naming the new deadline"
    )


def extension_emails(user) -> list:
    return [
        message
        for message in mail.outbox
        if message.to == [user.email] and message.subject.startswith("Staff gave you")
    ]


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


@pytest.mark.parametrize("stretch", ["extension", "vacation"])
def test_a_reminder_due_when_the_clock_stops_or_moves_is_not_lost(clock, alice, bob, stretch):
    """Half time came 10 s before Alice went on vacation (or staff gave her more time), and the
    sweep, every half minute, had not sent its reminder yet: the row was deleted with the
    others and half time counted as reminded, so it never came. Now it comes after the
    restart, at half of the time from there, naming the deadline that then holds (sent
    during the vacation it would name one the stopped clock no longer has)."""
    started = clock.now
    match = start_timed_match(alice, bob)  # two days per move; Alice has reminders at 50 and 80 %
    settle(clock)
    clock.now = started + timedelta(days=1, seconds=10)
    stretch_the_turn(clock, match, alice, stretch)
    restarted, deadline = clock.now, Seat.objects.get(match=match, number=0).deadline
    pending = Notification.objects.filter(
        user=alice, match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True
    )
    assert sorted(pending.values_list("due_at", flat=True)) == [
        restarted + (deadline - restarted) * share for share in (0.5, 0.8)
    ]

    clock.now = deadline - timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    reminded = [m for m in mail.outbox if m.to == ["alice@example.com"] and m.subject.startswith("Time is running")]
    assert len(reminded) == 2, "half time once, then 80 %"
    assert all(f"on {deadline:%A %-d %B %Y, %H:%M} UTC." in message.body for message in reminded)


def a_legal_move(match, seat: int) -> str:
    """One that ends the seat's turn (in Mancala a sowing may end in the player's store and play again)."""
    match.refresh_from_db()
    game, state = match.game_obj, match.game_obj.load(match.state)
    moves = game.legal_moves(state, seat)
    return next((move for move in moves if seat not in game.to_act(game.apply(state, seat, move))), moves[0])


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


def test_reminders_turned_off_are_not_posted_to_the_webhook_either(clock, alice, bob, webhook):
    alice.webhook_url = webhook.url
    alice.save()
    start_timed_match(alice, bob)
    assert Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER, channel="webhook").count() == 2
    settle(clock)
    alice.reminders = ""  # as the profile or the unsubscribe link saves it
    alice.save()

    clock.advance(days=2)
    notification_tasks.sweep_notifications()

    reminders = Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER)
    assert set(reminders.values_list("outcome", flat=True)) == {Notification.Outcome.SKIPPED}
    assert not [body for body in webhook.bodies if "Time is running out" in str(body)]


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


def test_a_changed_digest_hour_or_time_zone_moves_the_waiting_digest(clock, alice, bob, client):
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 8, "UTC"
    bob.save()
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    client.force_login(bob)

    client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "Europe/Berlin",
            "turn_notice": "digest",
            "digest_hour": "20",
            "reminders": "",
            "webhook_url": "",
        },
    )

    bob.refresh_from_db()
    [digest] = Notification.objects.filter(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert digest.due_at == notification_services.next_digest_at(bob, clock.now)
    assert digest.due_at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin")).hour == 20


@pytest.mark.parametrize(
    ("changed_at", "zone", "first_after"),
    [
        ("10:00", "UTC", timedelta(days=1, hours=10)),  # today's went at 8: tomorrow at 20
        ("10:00", "America/New_York", timedelta(days=1, hours=14)),  # 06:00 there; today's went at 04:00 there
        ("07:30", "UTC", timedelta(hours=12, minutes=30)),  # none went today: today at 20
    ],
)
def test_a_digest_hour_moved_after_todays_digest_brings_no_second_one_that_day(
    clock, alice, bob, client, changed_at, zone, first_after
):
    """Hour 8 to 20 after the 8 o'clock digest went out: a second digest came at 20 the same day."""
    clock.now = datetime(2026, 3, 10, 7, 0, tzinfo=zoneinfo.ZoneInfo("UTC"))
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 8, "UTC"
    bob.save()
    match = start_timed_match(alice, bob, clock=services.ClockSpec(time_control="none"))
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    hour, minute = map(int, changed_at.split(":"))
    clock.now = clock.now.replace(hour=hour, minute=minute)
    notification_tasks.sweep_notifications()
    assert len([m for m in mail.outbox if m.to == ["bob@example.com"]]) == (hour >= 8)
    client.force_login(bob)

    client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": zone,
            "turn_notice": "digest",
            "digest_hour": "20",
            "reminders": "",
            "webhook_url": "",
        },
    )

    changed = clock.now
    [digest] = Notification.objects.filter(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert digest.due_at == changed + first_after
    assert digest.due_at.astimezone(zoneinfo.ZoneInfo(zone)).hour == 20
    for _ in range(12):  # every six hours for three days
        clock.advance(hours=6)
        notification_tasks.sweep_notifications()
    sent = Notification.objects.filter(user=bob, kind=Notification.Kind.DIGEST, outcome="sent")
    days = [at.astimezone(zoneinfo.ZoneInfo(zone)).date() for at in sent.values_list("sent_at", flat=True)]
    assert len(days) == 3 and len(set(days)) == 3, "one digest a local day, three days running"


def test_staff_changing_the_digest_hour_on_the_user_page_moves_the_waiting_digest_too(clock, alice, bob, staff, client):
    """The admin saved the hour and zone but left the digest due at the old hour; a typed zone
    ("Berlin") was stored as it came and broke the player's dates."""
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 8, "UTC"
    bob.save()
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[bob.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "10:00", "time_zone": "Berlin"})

    assert client.post(url, data).status_code == 200, "refused: not a time zone"
    bob.refresh_from_db()
    assert bob.time_zone == "UTC"

    data.update({"time_zone": "Europe/Berlin", "digest_hour": "20"})
    assert client.post(url, data).status_code == 302
    bob.refresh_from_db()
    [digest] = Notification.objects.filter(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert digest.due_at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin")).hour == 20


def test_a_player_who_chooses_the_digest_while_matches_wait_gets_one_and_again_the_next_day(clock, alice, bob, client):
    match = start_timed_match(alice, bob, clock=services.ClockSpec())  # no clock: it may wait for days
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    settle(clock)
    client.force_login(bob)

    client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "UTC",
            "turn_notice": "digest",
            "digest_hour": "8",
            "reminders": "",
            "webhook_url": "",
        },
    )

    for day in range(2):
        digest = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
        clock.now = digest.due_at + timedelta(seconds=1)
        notification_tasks.sweep_notifications()
        assert [m.subject for m in mail.outbox if m.to == ["bob@example.com"]][day:] == ["Your turn in 1 match"], day
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    digest = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    clock.now = digest.due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    assert len([m for m in mail.outbox if m.to == ["bob@example.com"]]) == 2, "nothing waits: no third digest"


@pytest.mark.parametrize(
    ("zone", "now", "hour", "due"),
    [
        ("Europe/Paris", "2026-03-28T20:30Z", 20, "2026-03-29T18:00Z"),  # the evening the clocks go forward
        ("Europe/Paris", "2026-10-24T19:30Z", 20, "2026-10-25T19:00Z"),  # and back
        ("America/New_York", "2026-03-08T12:59Z", 8, "2026-03-09T12:00Z"),  # after the change, that morning
    ],
)
def test_the_digest_stays_at_the_players_hour_when_the_clocks_change(zone, now, hour, due):
    """The next digest is found on the player's wall clock, not 24 hours after the last one."""
    player = User(time_zone=zone, digest_hour=hour)
    at = notification_services.next_digest_at(player, datetime.fromisoformat(now))
    assert at == datetime.fromisoformat(due)
    assert at.astimezone(zoneinfo.ZoneInfo(zone)).hour == hour


def test_a_digest_player_gets_one_email_at_their_hour_listing_the_matches(clock, alice, bob, carol):
    # Not the test run's hour: started within the minute before 08:00 in Paris, the digest went
    # out while the start was settled, and was cleared with it.
    clock.now = datetime.fromisoformat("2026-11-20T10:00Z")
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 8, "Europe/Paris"
    bob.save()
    first, second = start_timed_match(alice, bob), start_timed_match(carol, bob)
    services.move_submit(match_id=first.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=second.pk, user=carol, move="1", expected_version=0)
    digest = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST)
    assert not Notification.objects.filter(user=bob, kind=Notification.Kind.YOUR_TURN).exists()
    assert digest.due_at == notification_services.next_digest_at(bob, clock.now)
    assert digest.due_at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Paris")).hour == 8

    settle(clock)
    assert notification_tasks.sweep_notifications() == 0, "not before the digest hour"
    clock.now = digest.due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    notification_tasks.sweep_notifications()
    digests = [m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn in 2 matches" in m.subject]
    assert len(digests) == 1
    assert f"/matches/{first.pk}/" in digests[0].body and f"/matches/{second.pk}/" in digests[0].body


@pytest.mark.parametrize("starts", ["creating it against the AI", "accepting the invitation"])
def test_a_digest_player_whose_own_action_starts_a_match_waiting_for_them_finds_it_in_the_digest(
    clock, alice, bob, starts
):
    """The player who starts a match gets no "your turn" (they are looking at it); that "your
    turn" was also what set the digest going, so a digest player who then left the match
    waiting heard of it in no digest, day after day."""
    clock.now = datetime.fromisoformat("2026-11-20T06:00Z")
    bob.turn_notice, bob.digest_hour = "digest", 8
    bob.save()
    if starts == "accepting the invitation":
        seats = [SeatSpec("user", username=bob.username), SeatSpec("creator")]  # Bob plays first
        match = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)
        services.match_accept(match_id=match.pk, user=bob)
    else:
        seats = [SeatSpec("creator"), SeatSpec("ai", ai_level=1)]
        match = services.match_create(creator=bob, game_slug="mancala", options={}, seats=seats)
    assert Seat.objects.get(match=match, user=bob).to_act
    settle(clock)

    clock.now = datetime.fromisoformat("2026-11-20T08:00:30Z")
    notification_tasks.sweep_notifications()
    [digest] = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    assert digest.subject == "Your turn in 1 match" and f"/matches/{match.pk}/" in digest.body


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


def your_turn_by_webhook(alice, bob, webhook, *statuses: int) -> tuple[Match, Notification]:
    """Bob has a webhook answering ``statuses`` (then 204); Alice moves: his webhook notice."""
    bob.webhook_url = webhook.url
    bob.save()
    match = start_timed_match(alice, bob)
    webhook.statuses.extend(statuses)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    return match, Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN, channel="webhook")


def test_a_webhook_gets_discord_and_slack_json_and_is_retried_after_a_server_error(clock, alice, bob, webhook):
    match, hook = your_turn_by_webhook(alice, bob, webhook, 500)

    with pytest.raises(Exception, match="500"):
        notification_services.notification_send(notification_id=hook.pk)
    hook.refresh_from_db()
    assert hook.sent_at is None and hook.due_at > clock.now
    clock.advance(seconds=31)
    assert notification_services.notification_send(notification_id=hook.pk) is True
    assert notification_services.notification_send(notification_id=hook.pk) is False
    assert len(webhook.bodies) == 1
    body = webhook.bodies[0]
    assert body["content"] == body["text"] and f"Your turn in {match}" in body["content"]
    assert f"/matches/{match.pk}/" in body["content"]


def test_a_players_name_in_a_webhook_notice_pings_nobody_and_makes_no_link(alice, bob, webhook):
    # Names may hold "@", "<", ">" and "|": Discord would ping the whole server, Slack would
    # ping the channel and show a link labelled "Go" leading elsewhere.
    alice.display_name = "@everyone <!here> <https://x.io|Go>"
    alice.save()
    bob.webhook_url = webhook.url
    bob.save()
    services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    hook = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, channel="webhook")

    assert notification_services.notification_send(notification_id=hook.pk) is True
    body = webhook.bodies[0]
    assert body["allowed_mentions"] == {"parse": []}
    assert body["content"].startswith("@everyone <!here> <https://x.io|Go> invites you")
    assert body["text"].startswith("@everyone &lt;!here&gt; &lt;https://x.io|Go&gt; invites you")


def test_a_webhook_that_is_gone_fails_for_good_and_the_profile_says_so(clock, alice, bob, webhook, client):
    _, hook = your_turn_by_webhook(alice, bob, webhook, 404)
    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "404" in hook.last_error
    client.force_login(bob)
    assert "The webhook answered HTTP 404." in client.get(reverse("profile")).content.decode()


def test_a_webhook_on_a_private_address_is_refused_for_good_without_a_request(
    clock, alice, bob, webhook, settings, client
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False  # as in production
    _, hook = your_turn_by_webhook(alice, bob, webhook)

    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "private network (127.0.0.1)" in hook.last_error
    assert webhook.bodies == [] and webhook.requests == 0
    client.force_login(bob)
    assert "use a public address" in client.get(reverse("profile")).content.decode()


def test_a_webhook_address_no_request_can_carry_fails_for_good_and_no_log_shows_its_token(
    clock, alice, bob, webhook, caplog
):
    """A control character in the path (an address saved before the profile refused them):
    http.client refused each attempt with "URL can't contain control characters. '/hook/<token>'",
    which was retried eight times and written, token and all, to the worker's log, the row's
    last error (shown to staff) and the "failed for good" line."""
    token = "T0k3nThatPostsToTheirChannel"
    _, hook = your_turn_by_webhook(alice, bob, webhook)
    User.objects.filter(pk=bob.pk).update(webhook_url=f"{webhook.url}/{token}\x01")
    with caplog.at_level(logging.INFO):
        assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert (hook.outcome, hook.attempts) == ("failed", 1), "no retry can succeed"
    assert hook.last_error == webhooks.UNUSABLE_ADDRESS
    assert token not in caplog.text and token not in hook.last_error
    assert webhook.requests == 0


def test_a_webhook_that_redirects_is_not_followed(clock, alice, bob, webhook):
    _, hook = your_turn_by_webhook(alice, bob, webhook, 307)

    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "redirect (HTTP 307)" in hook.last_error
    assert webhook.requests == 1, "one POST, the redirect not followed"


class RebindingDNS:
    """Answers for ``hook.example``: ``first`` the first time, ``later`` every time after
    (None: the name is not found); other names and literal addresses resolve as usual."""

    def __init__(self, monkeypatch, first: str, later: str | None):
        self.first, self.later, self.asked = first, later, 0
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host != "hook.example":
                return real(host, port, *args, **kwargs)
            self.asked += 1
            address = self.first if self.asked == 1 else self.later
            if address is None:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return real(address, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_webhook_request_names_its_host_though_it_connects_to_a_checked_address(monkeypatch, webhook):
    port = webhook.httpd.server_address[1]
    dns = RebindingDNS(monkeypatch, first="127.0.0.1", later=None)

    webhooks.post(f"http://hook.example:{port}/hook", "Your turn")

    assert dns.asked == 1, "the address checked is the address connected to"
    assert webhook.requests == 1 and webhook.hosts == [f"hook.example:{port}"]


def test_a_host_that_rebinds_to_a_private_address_after_the_check_is_never_reached(monkeypatch, settings, webhook):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False  # as in production
    port = webhook.httpd.server_address[1]
    RebindingDNS(monkeypatch, first="93.184.215.14", later="127.0.0.1")  # public for the check, then ours
    connected = []
    real = socket.create_connection

    def create_connection(address, *args, **kwargs):
        connected.append(address)
        if address[0] == "93.184.215.14":
            raise ConnectionRefusedError("no outside network in tests")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)

    with pytest.raises(OSError):
        webhooks.post(f"http://hook.example:{port}/hook", "Your turn")

    assert connected == [("93.184.215.14", port)]
    assert webhook.requests == 0, "the private server behind the rebound name got nothing"


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "10.1.2.3",
        "192.168.0.10",
        "169.254.169.254",
        "[::1]",
        "100.64.0.1",
        "[64:ff9b::a9fe:a9fe]",
        "[::127.0.0.1]",
    ],
)
def test_webhook_hosts_inside_private_networks_are_refused(settings, host):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    with pytest.raises(webhooks.Refused, match="private network"):
        webhooks.post(f"http://{host}/hook", "Your turn")


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://example.com/hook/\x01token",
        "https://example.com/hook/tok\x7fen",
    ],
)
def test_the_profile_accepts_only_http_and_https_webhooks(client, bob, url):
    client.force_login(bob)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "reminders": "",
            "webhook_url": url,
        },
    )
    assert response.status_code == 400
    said = "control characters" if url.startswith("https") else "starts with http:// or https://"
    assert said in response.content.decode()
    bob.refresh_from_db()
    assert bob.webhook_url == ""


def test_a_player_who_wants_no_email_gets_none_but_still_a_webhook(clock, alice, bob, webhook):
    bob.turn_notice, bob.webhook_url = "none", webhook.url
    bob.save()
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    channels = set(Notification.objects.filter(user=bob, kind="your_turn").values_list("channel", flat=True))
    assert channels == {"webhook"}


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


def test_the_unsubscribe_header_reaches_the_mail_server_as_one_plain_url(clock, alice, bob, mail_server, settings):
    settings.SITE_URL = "https://boardgames.example.org"  # a real site's address makes the line longer than 78
    start_timed_match(alice, bob)
    assert sweep(clock) >= 1
    raw = mail_server.messages[0].original_content.decode()
    url = re.search(r"Unsubscribe with one click: (\S+)", raw.replace("=\r\n", "")).group(1)
    assert f"\r\nList-Unsubscribe: <{url}>\r\n" in raw, "not folded into =?utf-8?q?…?= encoded words"
    assert "\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw


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


def test_the_digest_reads_only_the_matches_waiting_for_the_player(clock, alice, bob):
    """Least time left first; it read every live and the 20 latest finished matches to pick them."""
    later = start_timed_match(alice, bob, clock=services.ClockSpec(time_control="per_move", days_per_move=5))
    sooner = start_timed_match(alice, bob)  # 2 days
    start_timed_match(bob, alice)  # Bob's turn
    over = start_timed_match(alice, bob)
    services.match_resign(match_id=over.pk, user=alice)

    with CaptureQueriesContext(connection) as queries:
        waiting = selectors.matches_to_act(alice)
        assert [match.pk for match in waiting] == [sooner.pk, later.pk]
        assert [seat.user for seat in waiting[0].seats.all()] == [alice, bob]
    assert len(queries.captured_queries) == 2  # the matches, their seats


@pytest.mark.parametrize("webhook", ["", "https://example.com/hook"])
def test_rewriting_the_reminders_costs_the_same_queries_for_two_matches_as_for_eight(clock, alice, bob, webhook):
    """Saving the profile (and unsubscribing) rewrote the reminders one row, one query, at a time."""
    User.objects.filter(pk=alice.pk).update(webhook_url=webhook)

    def queries_to_rewrite() -> int:
        with CaptureQueriesContext(connection) as queries:
            notification_services.notification_settings_changed(user_id=alice.pk)
        return len(queries.captured_queries)

    for _ in range(2):
        start_timed_match(alice, bob)  # Alice to act: two reminders a turn
    two = queries_to_rewrite()
    for _ in range(6):
        start_timed_match(alice, bob)
    assert queries_to_rewrite() == two
    channels = 2 if webhook else 1
    assert Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER).count() == 8 * 2 * channels
