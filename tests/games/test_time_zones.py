"""Players in different time zones, and the days the clocks change.

Every moment a player reads (a deadline, the end of a vacation) is written in the reader's
own time zone; what lasts "a day" (a day per move, a day in the bank, a day of vacation) is
24 hours of real time, whatever the clocks do meanwhile; the daily digest goes once per
local day at the player's hour. Zones chosen for their odd offsets and changes: Europe/Berlin
and America/New_York (an hour, at 2 or 3 o'clock), Asia/Kolkata (+05:30, no change),
Pacific/Chatham (+12:45/+13:45, changing at 2:45 and 3:45) and Australia/Lord_Howe (a
30-minute change at 2 o'clock)."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import User
from games import services, tasks
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery
from tests.accounts.conftest import profile_data
from tests.games.conftest import start_timed_match


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


# (zone, digest hour, a day two days before the clocks change): the hour is the one skipped,
# or gone over twice, or (Chatham) one the change splits.
CLOCK_CHANGES = [
    ("Europe/Berlin", 2, "2026-03-27"),  # 29 March: 02:00 -> 03:00, the hour is skipped
    ("Europe/Berlin", 2, "2026-10-23"),  # 25 October: 03:00 -> 02:00, the hour comes twice
    ("America/New_York", 2, "2026-03-06"),  # 8 March: 02:00 -> 03:00
    ("America/New_York", 1, "2026-10-30"),  # 1 November: 02:00 -> 01:00
    ("Australia/Lord_Howe", 2, "2026-10-02"),  # 4 October: 02:00 -> 02:30
    ("Australia/Lord_Howe", 1, "2026-04-03"),  # 5 April: 02:00 -> 01:30, half the hour twice
    ("Pacific/Chatham", 3, "2026-09-25"),  # 27 September: 02:45 -> 03:45, 3 o'clock skipped
    ("Pacific/Chatham", 3, "2026-04-03"),  # 5 April: 03:45 -> 02:45, 3 o'clock twice
    ("Asia/Kolkata", 0, "2026-03-27"),  # no change: midnight every day
]


@pytest.mark.parametrize(("zone", "hour", "day"), CLOCK_CHANGES)
@pytest.mark.parametrize("late", [timedelta(seconds=1), timedelta(minutes=30), timedelta(minutes=50)])
def test_the_digest_goes_once_every_local_day_also_when_the_clocks_change(zone, hour, day, late):
    """Each digest is followed by the next one found when it went out (``late``: the relay is
    behind, a mail server was down). In Chatham a digest for 3 o'clock sent at 02:50 the second
    time round found 03:00 still ahead on the clock and went again 10 minutes later."""
    player, local = User(time_zone=zone, digest_hour=hour), zoneinfo.ZoneInfo(zone)
    start = datetime.combine(date.fromisoformat(day), datetime.min.time(), tzinfo=local)
    sent = [notification_services.next_digest_at(player, start)]
    for _ in range(4):
        sent.append(
            notification_services.next_digest_at(player, sent[-1].astimezone(UTC) + late)
        )  # the site's now is UTC

    days = [moment.astimezone(local).date() for moment in sent]
    assert days == [days[0] + timedelta(days=n) for n in range(5)], "one digest a day, none missed"
    for before, moment in pairwise(sent):
        on_the_clock = moment.astimezone(local)
        skipped = (on_the_clock.hour, on_the_clock.minute) != (hour, 0)
        assert not skipped or moment - before == timedelta(hours=24), (
            f"at the digest hour, or 24 h after the day before's where the clocks skip it: {on_the_clock}"
        )


def digests_to(user: User) -> list:
    return [message for message in mail.outbox if message.to == [user.email] and "Your turn in" in message.subject]


def test_a_digest_sent_late_in_an_hour_the_clocks_go_back_over_is_not_sent_again_that_day(clock, alice, bob):
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 3, "Pacific/Chatham"
    bob.save()
    clock.now = instant("2026-04-04T12:00Z")  # Sunday 5 April, 01:45 in Chatham: at 03:45 the clocks go back
    match = start_timed_match(alice, bob, clock=services.ClockSpec())
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST).due_at == instant("2026-04-04T13:15Z")

    clock.now = instant("2026-04-04T14:05Z")  # the relay was behind: 02:50, the second time round
    notification_tasks.sweep_notifications()
    assert len(digests_to(bob)) == 1
    for _ in range(24):  # the next two hours, 3 o'clock (the second one) among them
        clock.advance(minutes=5)
        notification_tasks.sweep_notifications()
    assert len(digests_to(bob)) == 1, "one digest on Sunday"
    tomorrow = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert tomorrow.due_at == instant("2026-04-05T14:15Z"), "Monday 03:00 (+12:45)"


ONE_DAY_A_MOVE = services.ClockSpec(time_control="per_move", days_per_move=1)


@pytest.mark.parametrize(
    ("zone", "in_email", "on_page"),
    [
        ("Asia/Kolkata", "Sunday 29 March 2026, 16:30 IST (Asia/Kolkata)", "Sun 29 Mar, 16:30 IST"),
        ("Pacific/Chatham", "Monday 30 March 2026, 00:45 UTC+13:45", "Mon 30 Mar, 00:45 UTC+13:45"),
        ("Australia/Lord_Howe", "Sunday 29 March 2026, 22:00 UTC+11", "Sun 29 Mar, 22:00 UTC+11"),
        ("Europe/Berlin", "Sunday 29 March 2026, 13:00 CEST (Europe/Berlin)", "Sun 29 Mar, 13:00 CEST"),
        ("America/New_York", "Sunday 29 March 2026, 07:00 EDT (America/New York)", "Sun 29 Mar, 07:00 EDT"),
        ("UTC", "Sunday 29 March 2026, 11:00 UTC", "Sun 29 Mar, 11:00 UTC"),
    ],
)
def test_each_player_reads_a_deadline_on_their_own_clock_with_the_zone_said(
    clock, alice, bob, client, zone, in_email, on_page
):
    """Bob's deadline, 24 hours after Alice (in Tokyo) moved, in Bob's zone wherever he reads
    it; in an email, read away from the site, letters that stand for several zones ("IST":
    India, Ireland, Israel) come with the zone's name. The tz database has no letters for
    Chatham or Lord Howe: it wrote "00:45 +1345", which reads as part of the time."""
    alice.time_zone, bob.time_zone, bob.reminders = "Asia/Tokyo", zone, "50"
    alice.save()
    bob.save()
    clock.now = instant("2026-03-28T11:00Z")  # the night before Europe's clocks go forward
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    client.force_login(alice)
    client.post(reverse("match_move", args=[match.pk]), {"move": "1", "version": "0"})  # in Tokyo's time zone

    emails = Notification.objects.filter(user=bob, channel="email")
    assert f"Your time runs out on {in_email}; then you lose the match." in emails.get(kind="your_turn").body
    assert f"your time runs out\non {in_email}." in emails.get(kind="reminder").body
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert re.search(rf'1 d 0 h left · until <time datetime="[^"]+">{re.escape(on_page)}</time>', page)
    assert f"until {on_page}</small>" in client.get(reverse("dashboard")).content.decode()
    client.force_login(alice)
    assert "Sun 29 Mar, 20:00 JST" in client.get(reverse("match_detail", args=[match.pk])).content.decode(), (
        "Alice reads Bob's deadline on her own clock"
    )


def reminder_emails_to(user: User) -> list[str]:
    return [
        message.subject
        for message in mail.outbox
        if message.to == [user.email] and message.subject.startswith("Time is running out")
    ]


@pytest.mark.parametrize(
    ("zone", "turn_begins", "deadline_on_page"),
    [
        ("Europe/Berlin", "2026-03-28T11:00Z", "Sun 29 Mar, 13:00 CEST"),  # Saturday 12:00 CET; the clocks go forward
        (
            "Europe/Berlin",
            "2026-10-24T12:30Z",
            "Sun 25 Oct, 13:30 CET",
        ),  # Saturday 14:30 CEST; back (half time at 02:30)
        ("Australia/Lord_Howe", "2026-10-03T01:30Z", "Sun 4 Oct, 12:30 UTC+11"),  # 12:00 +10:30; forward half an hour
        ("Pacific/Chatham", "2026-04-04T00:00Z", "Sun 5 Apr, 12:45 UTC+12:45"),  # 13:45 +13:45; back an hour
    ],
)
def test_a_day_per_move_is_24_hours_of_real_time_over_a_change_of_the_clocks(
    clock, alice, bob, client, zone, turn_begins, deadline_on_page
):
    """ "1 day per move" over a night the clocks change is 24 hours, not the same time on the
    next day's clock (which of the players' clocks would it be?): the deadline reads an hour
    (or half an hour) later or earlier on the clock. Reminders at 50, 80 and 95 % of the 24
    hours go once each, and the clock runs out at the 24th hour."""
    bob.time_zone, bob.reminders = zone, "50,80,95"
    bob.save()
    clock.now = instant(turn_begins)
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    deadline = clock.now + timedelta(hours=24)
    client.force_login(bob)
    assert f">{deadline_on_page}</time>" in client.get(reverse("match_detail", args=[match.pk])).content.decode()

    reminders = Notification.objects.filter(user=bob, kind=Notification.Kind.REMINDER, channel="email")
    assert sorted(reminders.values_list("due_at", flat=True)) == [
        clock.now + timedelta(hours=hours) for hours in (12, 19.2, 22.8)
    ]
    mail.outbox.clear()
    while clock.now + timedelta(minutes=10) < deadline:  # beat's relay, every 10 minutes here
        clock.advance(minutes=10)
        notification_tasks.sweep_notifications()
        tasks.sweep_deadlines()
    assert reminder_emails_to(bob) == [f"Time is running out in {match}"] * 3
    match.refresh_from_db()
    assert match.status == "active", "not out of time before the 24 hours"
    clock.now = deadline
    tasks.sweep_deadlines()
    match.refresh_from_db()
    assert match.status == "finished" and "ran out of time" in match.result["reason"]


@pytest.mark.parametrize(
    ("zone", "now", "days_left"),
    [
        ("Pacific/Chatham", "2026-12-31T20:15Z", 30),  # 1 January 2027, 10:00 there: a new year, a new allowance
        ("America/New_York", "2027-01-01T01:00Z", 0),  # 31 December 2026, 20:00 there: still the old one
    ],
)
def test_the_yearly_vacation_allowance_follows_the_players_own_new_year(clock, alice, client, zone, now, days_left):
    alice.time_zone, alice.vacation_year, alice.vacation_days_used = zone, 2026, 30
    alice.save()
    clock.now = instant(now)
    client.force_login(alice)
    assert f"{days_left} vacation days left this year." in client.get(reverse("profile")).content.decode()
    if days_left:
        services.vacation_start(user_id=alice.pk, days=days_left)
        alice.refresh_from_db()
        assert (alice.vacation_year, alice.vacation_days_used) == (2027, days_left)
    else:
        with pytest.raises(services.ServiceError, match=r"You have 0 vacation days left this year\."):
            services.vacation_start(user_id=alice.pk, days=1)


def test_a_new_time_zone_rewrites_the_waiting_reminders_and_moves_the_digest(clock, alice, bob, client):
    """A reminder is due at its share of the turn's real time, wherever the player is; what it
    says of the deadline, and the digest's hour, follow the player's new clock."""
    bob.time_zone, bob.reminders = "Europe/Berlin", "50,80"
    bob.save()
    clock.now = instant("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    reminders = Notification.objects.filter(user=bob, kind=Notification.Kind.REMINDER, sent_at__isnull=True)
    due = sorted(reminders.values_list("due_at", flat=True))
    assert {row.body.splitlines()[3] for row in reminders.all()} == {
        "on Sunday 29 March 2026, 13:00 CEST (Europe/Berlin). When it runs out: you lose the match."
    }

    clock.advance(hours=1)
    client.force_login(bob)
    client.post(
        reverse("profile"),
        profile_data(
            display_name="Bob", webhook_url="", time_zone="Asia/Kolkata", turn_notice="digest", digest_hour="7"
        ),
    )

    assert sorted(reminders.values_list("due_at", flat=True)) == due
    assert {row.body.splitlines()[3] for row in reminders.all()} == {
        "on Sunday 29 March 2026, 16:30 IST (Asia/Kolkata). When it runs out: you lose the match."
    }
    digest = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert digest.due_at == instant("2026-03-29T01:30Z"), "07:00 in Kolkata"


@pytest.mark.parametrize(
    ("change", "deadline_said"),
    [
        ("time zone", "Your time runs out on Sunday 29 March 2026, 16:30 IST (Asia/Kolkata); then you lose the match."),
        ("extension", "Your time runs out on Monday 30 March 2026, 11:00 UTC; then you lose the match."),
        ("vacation", "Your clock is stopped while you are on vacation."),
    ],
)
def test_a_your_turn_held_back_says_the_deadline_as_it_stands_when_it_goes_out(
    clock, alice, bob, client, change, deadline_said
):
    """Bob closed the match page just before his turn began, so the email waited for his page
    to be quiet; meanwhile he moved to India (or staff gave him a day, or he went on
    vacation). It went out as written: the deadline on his old clock (or one that no longer
    held, or a running clock while it was stopped)."""
    clock.now = instant("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    client.force_login(bob)
    client.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, HTTP_HX_REQUEST="true")
    clock.advance(seconds=20)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)  # Bob's deadline: 11:00:20Z
    your_turn = Notification.objects.get(user=bob, kind="your_turn", channel="email")
    assert notification_services.notification_send(notification_id=your_turn.pk) is False, "held back"
    if change == "time zone":
        client.post(reverse("profile"), profile_data(display_name="Bob", webhook_url="", time_zone="Asia/Kolkata"))
    elif change == "extension":
        services.seat_deadline_extend(match_id=match.pk, seat_number=1, hours=24, actor=None, reason="travel")
    else:
        services.vacation_start(user_id=bob.pk, days=1)

    your_turn.refresh_from_db()
    clock.now = your_turn.due_at + timedelta(seconds=1)
    notification_tasks.sweep_notifications()
    [email] = [message for message in mail.outbox if message.to == [bob.email] and "Your turn" in message.subject]
    assert deadline_said in email.body
    your_turn.refresh_from_db()
    assert deadline_said in your_turn.body, "the outbox keeps what was sent"


def test_a_reminder_due_when_the_player_changes_time_zone_says_the_deadline_on_the_new_clock(clock, alice, bob, client):
    """Half time came 10 s before Bob saved India as his zone; the sweep had not sent its
    reminder yet, and a reminder due is kept as written (its time is past): it named his
    deadline on the clock he had left."""
    bob.reminders = "50"
    bob.save()
    clock.now = instant("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)  # Bob's deadline: 11:00Z
    clock.now = instant("2026-03-28T23:00:10Z")
    client.force_login(bob)
    client.post(
        reverse("profile"), profile_data(display_name="Bob", webhook_url="", time_zone="Asia/Kolkata", reminders="50")
    )
    notification_tasks.sweep_notifications()
    [reminder] = [
        message
        for message in mail.outbox
        if message.to == [bob.email] and message.subject.startswith("Time is running out")
    ]
    assert "on Sunday 29 March 2026, 16:30 IST (Asia/Kolkata)." in reminder.body


def test_the_digest_writes_each_deadline_on_the_players_clock_with_the_zone_named(clock, alice, bob):
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 7, "Asia/Kolkata"
    bob.save()
    clock.now = instant("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=ONE_DAY_A_MOVE)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    clock.now = instant("2026-03-29T01:30:30Z")  # 07:00 in Kolkata
    notification_tasks.sweep_notifications()
    [digest] = digests_to(bob)
    assert f"- {match.full_name}: time runs out Sun 29 Mar, 16:30 IST (Asia/Kolkata)\n" in digest.body


def test_a_digest_that_fails_for_good_is_still_followed_by_the_next_days(clock, alice, bob, monkeypatch):
    """A digest refused by the mail server (or failing all its attempts) left no digest behind
    it: the matches kept waiting, and no digest came again until a new turn began, also
    after the player had corrected the address."""
    bob.turn_notice, bob.digest_hour, bob.time_zone = "digest", 7, "Asia/Kolkata"
    bob.save()
    clock.now = instant("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=services.ClockSpec())
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    deliver = delivery._deliver

    def refused(notification):
        raise notification_services.PermanentFailure("The mail server refused the address.")

    monkeypatch.setattr(delivery, "_deliver", refused)
    clock.now = instant("2026-03-29T01:30:30Z")  # 07:00 in Kolkata
    notification_tasks.sweep_notifications()
    assert Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=False).outcome == "failed"

    monkeypatch.setattr(delivery, "_deliver", deliver)  # the address corrected
    tomorrow = Notification.objects.get(user=bob, kind=Notification.Kind.DIGEST, sent_at__isnull=True)
    assert tomorrow.due_at == instant("2026-03-30T01:30Z")
    clock.now = tomorrow.due_at + timedelta(seconds=30)
    notification_tasks.sweep_notifications()
    assert len(digests_to(bob)) == 1
