"""A match still waiting for players (an open challenge, an invitation not answered) is
cancelled ``OPEN_MATCH_EXPIRY_DAYS`` after it was created or a seat was last taken, by the
beat sweep; the invited players still to answer are told ``OPEN_MATCH_WARN_DAYS`` before, once.

Time is moved forward by the ``clock`` fixture, never waited for."""

from __future__ import annotations

import re
from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps
from django.conf import settings
from django.urls import reverse

from config.celery import app
from games import services, tasks
from games.models import Match, MatchEvent, Status
from games.services import SeatSpec, joining
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.conftest import start_match
from tests.games.test_race import hold_the_lock_longer, require_postgresql, run_together

UPGRADE = import_module("games.migrations.0018_match_open_until")
DAYS = settings.OPEN_MATCH_EXPIRY_DAYS
BOB_SILENT = f"Bob did not answer the invitation in {DAYS} days, so the match is cancelled."
NOBODY_CAME = f"Nobody took the open seat in {DAYS} days, so the match is cancelled."


@pytest.fixture(autouse=True)
def enqueued(monkeypatch):
    calls: list[tuple] = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(notification_tasks, "enqueue_notification", lambda *args: calls.append(("notification", *args)))
    return calls


def invite(creator, *invited, open_seats=0):
    seats = [
        SeatSpec("creator"),
        *(SeatSpec("user", username=user.username) for user in invited),
        *[SeatSpec("open")] * open_seats,
    ]
    game = "mancala" if len(seats) == 2 else "jeexa"
    return services.match_create(creator=creator, game_slug=game, options={}, seats=seats)


def cancellations(match) -> dict[str, str]:
    """Who was told the match was cancelled, and the reason the email gives."""
    rows = Notification.objects.filter(match=match, kind=Notification.Kind.MATCH_OVER)
    told = {row.user.username: row.body for row in rows}
    assert len(told) == rows.count(), "told twice"
    return told


def warnings(match) -> list[Notification]:
    return list(
        Notification.objects.filter(match=match, kind=Notification.Kind.INVITATION, subject__contains="runs out")
    )


def test_an_unanswered_invitation_cancels_the_match_after_the_days_and_not_before(clock, alice, bob):
    match = invite(alice, bob)
    assert match.open_until == clock.now + timedelta(days=DAYS)

    clock.advance(days=DAYS, seconds=-1)
    assert tasks.sweep_open_matches()["cancelled"] == 0
    assert Match.objects.get(pk=match.pk).status == Status.OPEN

    clock.advance(seconds=1)
    assert tasks.sweep_open_matches()["cancelled"] == 1
    match.refresh_from_db()
    assert match.status == Status.ABORTED and match.finished_at == clock.now
    ended = MatchEvent.objects.get(match=match, to_status=Status.ABORTED)
    assert ended.reason == BOB_SILENT and ended.actor is None
    told = cancellations(match)
    assert set(told) == {"alice", "bob"}, "the creator and the invited player both hear of it"
    assert all(BOB_SILENT in body for body in told.values())


def test_an_open_challenge_nobody_takes_is_cancelled_in_the_same_words_everywhere(clock, client, alice, bob):
    match = invite(alice, open_seats=1)
    clock.advance(days=DAYS)
    tasks.sweep_open_matches()

    assert Match.objects.get(pk=match.pk).status == Status.ABORTED
    assert NOBODY_CAME in cancellations(match)["alice"]
    with pytest.raises(services.ServiceError, match=NOBODY_CAME):  # too late to join: told why
        services.match_join(match_id=match.pk, user=bob)


def test_the_reason_names_every_seat_still_waiting(clock, alice, bob, carol):
    match = invite(alice, bob, carol, open_seats=2)
    clock.advance(days=DAYS)
    tasks.sweep_open_matches()
    assert MatchEvent.objects.get(match=match, to_status=Status.ABORTED).reason == (
        f"Bob and Carol did not answer their invitations and nobody took the 2 open seats in {DAYS} days, "
        "so the match is cancelled."
    )


def test_a_seat_taken_gives_a_match_that_is_filling_up_its_whole_time_again(clock, alice, bob, carol):
    match = invite(alice, open_seats=2)
    clock.advance(days=DAYS - 1)
    services.match_join(match_id=match.pk, user=bob)

    clock.advance(days=DAYS - 1)
    tasks.sweep_open_matches()
    assert Match.objects.get(pk=match.pk).status == Status.OPEN

    clock.advance(days=1)
    tasks.sweep_open_matches()
    assert Match.objects.get(pk=match.pk).status == Status.ABORTED
    assert set(cancellations(match)) == {"alice", "bob"}, "the player who joined hears of it too"


def test_a_match_that_started_is_never_expired(clock, alice, bob):
    against_ai = start_match(alice, ai_level=1)
    between_people = start_match(alice, bob)
    clock.advance(days=DAYS * 3)
    assert tasks.sweep_open_matches() == {"cancelled": 0, "told": 0}
    assert {match.status for match in Match.objects.filter(pk__in=[against_ai.pk, between_people.pk])} == {
        Status.ACTIVE
    }


def test_the_invited_player_still_to_answer_is_told_once_before_it_runs_out(clock, alice, bob, carol):
    match = invite(alice, bob, carol)
    services.match_accept(match_id=match.pk, user=carol)  # a seat taken: the time counts from here
    open_until = clock.now + timedelta(days=DAYS)

    clock.advance(days=DAYS - settings.OPEN_MATCH_WARN_DAYS, seconds=-1)
    tasks.sweep_open_matches()
    assert warnings(match) == []

    clock.advance(seconds=1)
    assert tasks.sweep_open_matches()["told"] == 1
    clock.advance(days=1)
    assert tasks.sweep_open_matches() == {"cancelled": 0, "told": 0}, "told once"
    [warning] = warnings(match)
    assert warning.user == bob, "only the player who has not answered"
    assert warning.subject.startswith(f"Your invitation to {match} runs out on ")
    assert "Alice's invitation to play" in warning.body and "unless you accept before then" in warning.body
    assert reverse("match_detail", args=[match.pk]) in warning.body
    assert Match.objects.get(pk=match.pk).open_until == open_until


def test_the_warning_says_the_moment_on_the_players_clock(clock, alice, bob):
    bob.time_zone = "Asia/Tokyo"
    bob.save(update_fields=["time_zone"])
    clock.now = clock.now.replace(hour=0, minute=0, second=0, microsecond=0)
    invite(alice, bob)
    clock.advance(days=DAYS - 1)
    tasks.sweep_open_matches()
    [warning] = Notification.objects.filter(user=bob, subject__contains="runs out")
    assert warning.subject.endswith(", 09:00 JST"), warning.subject


def test_an_invitation_answered_before_its_warning_goes_out_is_not_warned_of(clock, alice, bob):
    match = invite(alice, bob)
    clock.advance(days=DAYS - 1)
    tasks.sweep_open_matches()
    [warning] = warnings(match)
    services.match_accept(match_id=match.pk, user=bob)

    assert notification_services.notification_send(notification_id=warning.pk) is False
    warning.refresh_from_db()
    assert warning.outcome == Notification.Outcome.SKIPPED


def test_a_second_sweep_cancels_nothing_twice_and_tells_nobody_twice(clock, alice, bob):
    match = invite(alice, bob)
    clock.advance(days=DAYS - 1)
    tasks.sweep_open_matches()
    tasks.sweep_open_matches()
    clock.advance(days=1)
    assert tasks.sweep_open_matches()["cancelled"] == 1
    assert tasks.sweep_open_matches()["cancelled"] == 0
    assert services.match_expire(match_id=match.pk) is False
    assert MatchEvent.objects.filter(match=match, to_status=Status.ABORTED).count() == 1
    assert len(warnings(match)) == 1
    assert set(cancellations(match)) == {"alice", "bob"}


def test_a_failing_match_does_not_stop_the_sweep(clock, alice, bob, carol, monkeypatch, caplog):
    first, second = invite(alice, bob), invite(carol, bob)
    clock.advance(days=DAYS)
    original = services.match_expire

    def fail_the_first(*, match_id):
        if match_id == first.pk:
            raise RuntimeError("disk full")
        return original(match_id=match_id)

    monkeypatch.setattr(services, "match_expire", fail_the_first)
    assert tasks.sweep_open_matches()["cancelled"] == 1
    assert Match.objects.get(pk=first.pk).status == Status.OPEN
    assert Match.objects.get(pk=second.pk).status == Status.ABORTED
    assert f"open match {first.pk} failed" in caplog.text


def test_the_lobby_the_invitations_and_the_match_page_say_until_when_it_is_open(clock, client, alice, bob, carol):
    clock.now = clock.now.replace(year=2026, month=11, day=28, hour=12, minute=0, second=0, microsecond=0)
    invite(alice, open_seats=1)
    invitation = invite(carol, bob)
    bob.time_zone = "America/New_York"
    bob.save(update_fields=["time_zone"])
    client.force_login(bob)
    until = "Sat 12 Dec, 07:00 EST" if DAYS == 14 else ".+?"  # on Bob's clock

    lobby = client.get(reverse("lobby")).content.decode()
    assert len(re.findall(f'Open until <time datetime="[^"]+">{until}</time>', lobby)) == 1
    assert re.search(f'answer by <time datetime="[^"]+">{until}</time>', lobby)
    page = client.get(reverse("match_detail", args=[invitation.pk])).content.decode()
    assert re.search(
        f'Open until <time datetime="[^"]+">{until}</time>; if no seat is taken by then, the match is cancelled.', page
    )

    services.match_accept(match_id=invitation.pk, user=bob)
    assert "Open until" not in client.get(reverse("match_detail", args=[invitation.pk])).content.decode()


def test_beat_sweeps_the_open_matches_often():
    entry = app.conf.beat_schedule["expire-open-matches"]
    assert entry["task"] == tasks.sweep_open_matches.name
    assert entry["schedule"] <= 3600


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_cancel_each_match_once_and_tell_each_player_once(clock, alice, bob, carol):
    require_postgresql()
    expiring = [invite(alice, bob), invite(carol, bob), invite(bob, alice, open_seats=0)]
    warned = invite(alice, carol)
    clock.advance(days=DAYS)
    Match.objects.filter(pk=warned.pk).update(open_until=clock.now + timedelta(days=1))

    results = run_together(tasks.sweep_open_matches, tasks.sweep_open_matches)

    assert all(isinstance(result, dict) for result in results), results
    assert sum(result["cancelled"] for result in results) == 3
    assert sum(result["told"] for result in results) == 1
    for match in expiring:
        assert MatchEvent.objects.filter(match=match, to_status=Status.ABORTED).count() == 1
        assert len(cancellations(match)) == 2
    assert len(warnings(warned)) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(4))
def test_an_acceptance_at_the_last_moment_and_the_expiry_end_with_exactly_one_of_them(
    attempt, clock, alice, bob, monkeypatch
):
    require_postgresql()
    match = invite(alice, bob)
    clock.advance(days=DAYS)  # the sweep comes just as Bob accepts
    hold_the_lock_longer(monkeypatch, (joining, "_cancel_open"), (joining, "start_if_full"))

    def accept():
        return services.match_accept(match_id=match.pk, user=bob)

    def expire():
        return services.match_expire(match_id=match.pk)

    names = ["accept", "expire"] if attempt % 2 else ["expire", "accept"]
    calls = [accept, expire] if attempt % 2 else [expire, accept]
    results = dict(zip(names, run_together(*calls), strict=True))
    match.refresh_from_db()
    if isinstance(results["accept"], Match):
        assert results["expire"] is False, "the acceptance got in first: the match started"
        assert match.status == Status.ACTIVE
        assert not MatchEvent.objects.filter(match=match, to_status=Status.ABORTED).exists()
    else:
        assert results["expire"] is True
        assert isinstance(results["accept"], services.ServiceError) and results["accept"].message == BOB_SILENT
        assert match.status == Status.ABORTED
        assert not MatchEvent.objects.filter(match=match, to_status=Status.ACTIVE).exists()
        assert set(cancellations(match)) == {"alice", "bob"}


def test_matches_waiting_when_expiry_came_in_get_the_whole_time_from_the_upgrade(clock, alice, bob):
    waiting, started = invite(alice, bob), start_match(alice, bob)
    Match.objects.update(open_until=None)  # as the site left them before
    clock.advance(days=400)

    UPGRADE.give_open_matches_their_time(apps, None)

    assert Match.objects.get(pk=waiting.pk).open_until == clock.now + timedelta(days=DAYS)
    assert Match.objects.get(pk=started.pk).open_until is None
    assert tasks.sweep_open_matches() == {"cancelled": 0, "told": 0}, "nobody is cancelled without a warning"


def test_the_invitation_says_by_when_to_answer_on_the_players_clock(clock, alice, bob):
    bob.time_zone = "Asia/Tokyo"
    bob.save(update_fields=["time_zone"])
    clock.now = clock.now.replace(year=2026, month=11, day=28, hour=0, minute=0, second=0, microsecond=0)
    match = invite(alice, bob)
    [invitation] = Notification.objects.filter(match=match, kind=Notification.Kind.INVITATION)
    assert "Please answer by Saturday 12 December 2026, 09:00 JST (Asia/Tokyo)" in invitation.body
