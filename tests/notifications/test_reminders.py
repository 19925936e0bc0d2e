"""Reminders before a clock runs out: at the shares of the turn the player chose, each once a
turn, counted from the last restart of the clock (more time from staff, the end of a vacation)
to the deadline then, rewritten when the settings change and never sent once turned off, by
email or webhook; rewriting them costs the same queries however many matches wait. Time is
moved forward by the ``clock`` fixture."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import User
from games import services, tasks
from games.models import Seat
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import extension_emails, settle, unsubscribe_path


def stretch_the_turn(clock, match, alice, stretch: str) -> None:
    """Staff give Alice (seat 0) 24 more hours, or a day's vacation stops her clock and ends."""
    if stretch == "extension":
        services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="travel")
    else:
        services.vacation_start(user_id=alice.pk, days=1)
        clock.advance(days=1, seconds=1)
        assert tasks.sweep_vacations() == 1


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
