"""The daily digest: one email at the player's hour listing the matches waiting for them, read
in two queries, kept at that hour on their wall clock when the clocks change, moved when the
player (or staff) change the hour or the time zone, never two in a day, and also for a match
the player's own action started."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import User
from games import selectors, services
from games.models import Seat
from games.services import SeatSpec
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import settle


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
