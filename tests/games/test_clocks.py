"""Time controls: deadlines, time banks, timeouts applied exactly once (also against a
last-second move and a second sweep), vacations, staff extensions, and how clocks show.

Time is moved forward by the ``clock`` fixture, never waited for."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services, tasks
from games.models import DAY, Match, MatchEvent, MoveRecord, Seat, Status
from games.services import ClockSpec, SeatSpec, clocks, creating, leaving, turns
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.conftest import make_user, start_match
from tests.games.conftest import PER_MOVE_2_DAYS, start_timed_match
from tests.games.test_race import hold_the_lock_longer, require_postgresql, run_together

BANK = ClockSpec(time_control="bank", bank_initial_days=3, bank_increment_days=2, bank_cap_days=4)


def seat(match, number) -> Seat:
    return Seat.objects.get(match=match, number=number)


@pytest.fixture
def enqueued(monkeypatch):
    calls: list[tuple] = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(notification_tasks, "enqueue_notification", lambda *args: calls.append(("notification", *args)))
    return calls


def test_a_per_move_clock_runs_for_the_player_to_act_only(clock, alice, bob):
    match = start_timed_match(alice, bob)
    assert seat(match, 0).deadline == clock.now + timedelta(days=2)
    assert seat(match, 1).deadline is None

    clock.advance(hours=30)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert seat(match, 0).deadline is None
    assert seat(match, 1).deadline == clock.now + timedelta(days=2), "a fresh two days for Bob"


def test_a_time_bank_keeps_what_is_left_plus_the_increment_up_to_the_cap(clock, alice, bob):
    match = start_timed_match(alice, bob, clock=BANK)
    assert seat(match, 0).deadline == clock.now + timedelta(days=3)
    assert seat(match, 1).bank_seconds == 3 * DAY, "the waiting player's bank is shown from the start"

    clock.advance(days=1)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert seat(match, 0).bank_seconds == (3 - 1 + 2) * DAY
    clock.advance(hours=1)
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    assert seat(match, 1).bank_seconds == 4 * DAY, "3 days - 1 hour + 2 days, capped at 4 days"
    assert seat(match, 0).deadline == clock.now + timedelta(days=4), "Alice's turn runs on her whole bank"


def test_a_move_after_the_deadline_is_refused(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    clock.advance(days=2, seconds=1)
    with pytest.raises(services.MoveRejected, match="ran out"):
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert not MoveRecord.objects.filter(match=match).exists()
    client.force_login(alice)  # before the sweep applies the timeout, the page offers no move
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Your time for this move ran out." in page and "Your turn." not in page
    assert "the timeout is applied: you lose the match." in page, "two players: the late one loses"
    assert 'name="move"' not in page


def test_the_late_player_of_two_loses_once_and_both_are_told(clock, alice, bob):
    match = start_timed_match(alice, bob)
    clock.advance(days=1)
    assert tasks.sweep_deadlines() == 0, "nothing is due yet"

    clock.advance(days=1, seconds=1)
    assert tasks.sweep_deadlines() == 1
    assert tasks.sweep_deadlines() == 0, "a second (or late) sweep finds nothing to do"
    assert services.match_timeout(match_id=match.pk, expected_version=0) == []

    match.refresh_from_db()
    assert match.status == Status.FINISHED
    assert match.result["winners"] == [1] and "ran out of time" in match.result["reason"]
    assert MatchEvent.objects.filter(match=match, to_status=Status.FINISHED).count() == 1
    told = Notification.objects.filter(match=match, kind=Notification.Kind.TIMEOUT)
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob"]
    assert "You ran out of time and lost." in told.get(user=alice).body
    assert "Alice ran out of time and lost, so you won." in told.get(user=bob).body
    assert not Seat.objects.filter(match=match, deadline__isnull=False).exists()


def test_each_seat_counts_its_turns_on_a_clock_and_those_its_clock_ran_out_in(clock, alice, bob):
    """How reliable a player is: the share of their turns on a clock that ran out."""
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    assert list(Seat.objects.filter(match=match).values_list("turns", "timeouts")) == [(1, 0), (1, 0)]
    clock.advance(days=2, seconds=1)
    assert tasks.sweep_deadlines() == 1
    assert list(Seat.objects.filter(match=match).values_list("turns", "timeouts")) == [(2, 1), (1, 0)]
    untimed = start_match(alice, bob)
    services.move_submit(match_id=untimed.pk, user=alice, move="1", expected_version=0)
    assert Seat.objects.get(match=untimed, user=alice).turns == 0, "without a clock no turn can run out"


def test_with_three_players_the_ai_takes_the_late_seat_and_the_log_says_so(
    clock, alice, bob, carol, enqueued, client, django_capture_on_commit_callbacks
):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    clock.advance(days=3)

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep_deadlines() == 1
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    late = seat(match, 0)
    assert late.user is None and late.ai_level == 2 and late.deadline is None
    assert ("ai_move", match.pk, 0) in enqueued
    told = Notification.objects.filter(match=match, kind=Notification.Kind.TIMEOUT)
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob", "carol"]
    assert "You ran out of time; the AI took your seat and plays on." in told.get(user=alice).body
    assert "Alice ran out of time; the AI plays on." in told.get(user=bob).body
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Alice ran out of time; the AI plays on." in page
    client.force_login(alice)  # the link in her email still opens the match, to watch
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "The AI plays your former seat (player 1); you are watching." in page


@pytest.mark.django_db(transaction=True)
def test_two_deadline_sweeps_at_once_apply_each_timeout_once(clock, alice, bob, carol, enqueued):
    require_postgresql()
    matches = [start_timed_match(alice, bob), start_timed_match(carol, bob), start_timed_match(bob, alice)]
    clock.advance(days=2, seconds=1)

    counts = run_together(tasks.sweep_deadlines, tasks.sweep_deadlines)

    assert all(isinstance(count, int) for count in counts), counts
    assert sum(counts) == 3
    for match in matches:
        assert MatchEvent.objects.filter(match=match, to_status=Status.FINISHED).count() == 1
        assert Notification.objects.filter(match=match, kind=Notification.Kind.TIMEOUT).count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(4))
def test_a_timeout_racing_a_last_second_move_ends_with_exactly_one_of_them(
    attempt, clock, alice, bob, enqueued, monkeypatch
):
    require_postgresql()
    match = start_timed_match(alice, bob)
    deadline = seat(match, 0).deadline
    clock.advance(days=2, seconds=-1)  # the move comes in one second before the deadline
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"), (leaving, "stop_all_clocks"))

    def move():
        return services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    def timeout():  # the sweep's clock is a little ahead of the web server's
        return services.match_timeout(match_id=match.pk, expected_version=0, now=deadline + timedelta(seconds=1))

    calls = [move, timeout] if attempt % 2 else [timeout, move]
    results = dict(zip(["move", "timeout"] if attempt % 2 else ["timeout", "move"], run_together(*calls), strict=True))
    match.refresh_from_db()
    if isinstance(results["move"], MoveRecord):
        assert results["timeout"] == [], "the move got in first: the timeout finds the version moved on"
        assert match.status == Status.ACTIVE and match.version == 1
        assert seat(match, 1).deadline is not None
    else:
        assert results["timeout"] == [0]
        assert isinstance(results["move"], services.MoveRejected), results
        assert match.status == Status.FINISHED and match.version == 0
        assert not MoveRecord.objects.filter(match=match).exists()
    assert MatchEvent.objects.filter(match=match, to_status=Status.FINISHED).count() == (match.version == 0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(2))
def test_a_timeout_racing_a_last_second_extension_ends_with_exactly_one_of_them(
    attempt, clock, alice, bob, enqueued, monkeypatch
):
    require_postgresql()
    match = start_timed_match(alice, bob)
    deadline = seat(match, 0).deadline
    clock.now = deadline - timedelta(seconds=1)
    hold_the_lock_longer(monkeypatch, (clocks, "record_event"), (leaving, "stop_all_clocks"))

    def extend():
        return services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=None, reason="ill")

    def timeout():  # the sweep's clock is a little ahead of the web server's
        return services.match_timeout(match_id=match.pk, expected_version=0, now=deadline + timedelta(seconds=1))

    extended, timed_out = run_together(extend, timeout) if attempt else run_together(timeout, extend)[::-1]
    match.refresh_from_db()
    if isinstance(extended, Seat):
        assert timed_out == [], "the extension got in first: the deadline the timeout finds is not past"
        assert match.status == Status.ACTIVE and seat(match, 0).deadline == deadline + timedelta(days=1)
    else:
        assert timed_out == [0]
        assert isinstance(extended, services.ServiceError) and extended.message == services.NOT_IN_PLAY, extended
        assert match.status == Status.FINISHED
    assert MatchEvent.objects.filter(match=match, to_status=Status.FINISHED).count() == (match.status == "finished")


def test_a_vacation_stops_the_clocks_and_they_run_on_with_the_time_left(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    clock.advance(hours=12)
    services.vacation_start(user_id=alice.pk, days=5)
    alice_seat = seat(match, 0)
    assert alice_seat.deadline is None and alice_seat.paused_seconds == 36 * 3600

    client.force_login(bob)
    assert "On vacation until" in client.get(reverse("match_detail", args=[match.pk])).content.decode()
    clock.advance(days=4)
    assert tasks.sweep_deadlines() == 0, "no clock runs during a vacation"
    clock.advance(days=1, seconds=1)
    assert tasks.sweep_vacations() == 1
    assert seat(match, 0).deadline == clock.now + timedelta(hours=36)
    alice.refresh_from_db()
    assert alice.vacation_until is None and alice.vacation_days_used == 5


def test_a_vacation_keeps_the_time_left_to_the_nearest_second(clock, alice, bob):
    """The time left was cut to whole seconds: 43:59:59.7 was kept as 43:59:59, so each vacation
    could cost up to a second (0.7 s each here). Rounded, a vacation moves it by half a second at most."""
    match = start_timed_match(alice, bob)  # two days a move
    for _ in range(3):
        clock.advance(hours=4, milliseconds=300)
        left = seat(match, 0).deadline - clock.now
        services.vacation_start(user_id=alice.pk, days=1)
        clock.advance(days=1)
        services.vacation_end(user_id=alice.pk)
        assert abs(seat(match, 0).deadline - clock.now - left) <= timedelta(milliseconds=500)


def test_a_time_bank_keeps_what_is_left_to_the_nearest_second(clock, alice, bob):
    """A turn's time left was cut to whole seconds, so every turn on a bank could cost up to a second."""
    match = start_timed_match(
        alice, bob, clock=ClockSpec(time_control="bank", bank_initial_days=3, bank_increment_days=1, bank_cap_days=14)
    )
    clock.advance(days=1, milliseconds=300)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert seat(match, 0).bank_seconds == 3 * DAY, "3 days - 1 day 0.3 s + 1 day, to the nearest second"


def test_a_vacation_started_after_the_deadline_does_not_save_the_late_turn(clock, alice, bob, client):
    """Before the sweep ran, a vacation stopped a clock already run out (0 s left, no deadline)
    and the late move went through."""
    match = start_timed_match(alice, bob)  # two days a move, Alice to act
    clock.advance(days=2, seconds=30)
    services.vacation_start(user_id=alice.pk, days=1)
    assert seat(match, 0).deadline is not None, "the late turn is left to the timeout sweep"
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Time ran out" in page and "the clock is stopped" not in page, "the page must not promise a stopped clock"
    assert "does not stop this clock" in page
    assert tasks.sweep_deadlines() == 1
    with pytest.raises(services.MoveRejected):
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    match.refresh_from_db()
    assert match.status == Status.FINISHED and match.result["winners"] == [1]
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "On vacation until" in page and "clock" not in page.split("On vacation until")[1].split("</small>")[0]


def test_one_vacation_that_cannot_end_does_not_hold_up_the_others(clock, alice, bob, monkeypatch):
    for player in (alice, bob):
        services.vacation_start(user_id=player.pk, days=1)
    clock.advance(days=1, seconds=1)
    real_end = services.vacation_end

    def failing_for_alice(*, user_id):
        if user_id == alice.pk:
            raise RuntimeError("deadlock detected")
        return real_end(user_id=user_id)

    monkeypatch.setattr(services, "vacation_end", failing_for_alice)
    assert tasks.sweep_vacations() == 1
    bob.refresh_from_db()
    assert bob.vacation_until is None, "Bob's vacation ended although Alice's failed"


def test_a_turn_that_begins_during_a_vacation_starts_stopped(clock, alice, bob):
    match = start_timed_match(alice, bob)
    services.vacation_start(user_id=bob.pk, days=2)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    bob_seat = seat(match, 1)
    assert bob_seat.deadline is None and bob_seat.paused_seconds == 2 * DAY


def test_the_vacation_allowance_is_thirty_days_a_year_and_early_returns_give_days_back(clock, alice):
    services.vacation_start(user_id=alice.pk, days=20)
    with pytest.raises(services.ServiceError, match="already"):
        services.vacation_start(user_id=alice.pk, days=1)
    clock.advance(days=5, hours=1)
    services.vacation_end(user_id=alice.pk)
    alice.refresh_from_db()
    assert alice.vacation_days_used == 6, "14 whole days unused go back"
    with pytest.raises(services.ServiceError, match=r"You have 24 vacation days left this year\."):
        services.vacation_start(user_id=alice.pk, days=25)


def test_staff_extend_a_deadline_with_a_recorded_reason(clock, alice, bob, staff):
    match = start_timed_match(alice, bob)
    before = seat(match, 0).deadline
    with pytest.raises(services.ServiceError, match="why"):
        services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=staff, reason=" ")
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=24, actor=staff, reason="Power cut")
    assert seat(match, 0).deadline == before + timedelta(hours=24)
    event = MatchEvent.objects.get(match=match, actor=staff)
    assert "24 more hours: Power cut" in event.reason and event.ply == 0
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=1, actor=staff, reason="Storm")
    assert MatchEvent.objects.filter(match=match, reason__endswith="was given 1 more hour: Storm.").exists()
    with pytest.raises(services.ServiceError, match="no clock"):
        services.seat_deadline_extend(match_id=match.pk, seat_number=1, hours=1, actor=staff, reason="x")
    untimed = start_timed_match(alice, bob, clock=ClockSpec())
    with pytest.raises(services.ServiceError, match=r"^This match has no time limit, so there is no deadline to"):
        services.seat_deadline_extend(match_id=untimed.pk, seat_number=0, hours=1, actor=staff, reason="x")


def test_staff_who_extend_a_deadline_in_a_match_not_started_are_told_it_waits_for_players(clock, alice, bob, staff):
    """It said "This match is not in play any more." of a match that had not begun."""
    waiting = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={},
        clock=PER_MOVE_2_DAYS,
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob")],
    )
    with pytest.raises(services.ServiceError) as refused:
        services.seat_deadline_extend(match_id=waiting.pk, seat_number=0, hours=24, actor=staff, reason="x")
    assert refused.value.message == "This match has not started yet: it is waiting for players."
    assert not MatchEvent.objects.filter(match=waiting, actor=staff).exists()


def test_an_extension_for_a_long_name_with_a_long_reason_is_recorded_whole(clock, alice, staff):
    long_name = make_user("n" * 150)  # Django allows 150-character usernames
    match = start_timed_match(long_name, alice)  # seat 0, whose clock runs
    reason = "The player's internet provider failed for two days; confirmed by email. " * 2  # 144 characters
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=48, actor=staff, reason=reason)
    event = MatchEvent.objects.get(match=match, actor=staff)
    assert event.reason == f"{'n' * 150} was given 48 more hours: {reason.strip().rstrip('.')}."


def test_the_dashboard_puts_the_your_turn_match_with_least_time_first(clock, alice, bob, client):
    slow = start_timed_match(alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=14))
    fast = start_timed_match(alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=1))
    client.force_login(alice)
    page = client.get(reverse("dashboard")).content.decode()
    assert page.index(f"#{fast.pk}<") < page.index(f"#{slow.pk}<")
    assert "left" in page


def test_a_clock_is_shown_in_the_viewers_time_zone(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    bob.time_zone = "Asia/Tokyo"
    bob.save()
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "JST" in page and "2 d 0 h left" in page and "2 days per move" in page


def test_the_create_form_makes_a_match_with_a_time_bank(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "ai:1",
            "time_control": "bank",
            "bank_initial_days": "5",
            "bank_increment_days": "1",
            "bank_cap_days": "10",
            "on_timeout": "lose",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert (match.time_control, match.bank_initial_days, match.bank_cap_days) == ("bank", 5, 10)
    assert seat(match, 0).bank_seconds is not None and seat(match, 0).deadline is not None
    assert seat(match, 1).deadline is None, "the AI has no clock"


def test_a_time_bank_whose_cap_is_below_its_start_is_refused(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "ai:1",
            "time_control": "bank",
            "bank_initial_days": "5",
            "bank_increment_days": "1",
            "bank_cap_days": "2",
        },
    )
    assert response.status_code == 400 and creating.BAD_TIME_BANK in response.content.decode()


def test_a_vacation_speaks_of_no_clock_in_a_match_without_a_time_limit(alice, bob, client):
    match = start_match(alice, bob)
    services.vacation_start(user_id=alice.pk, days=2)
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    note = page.split("On vacation until")[1].split("</small>")[0]
    assert "clock" not in note


def test_a_vacation_costs_the_same_queries_for_two_matches_as_for_eight(clock, alice, bob):
    """Starting or ending a vacation took about six queries per match, in one transaction
    that held the matches locked."""

    def queries_to(service, **kwargs) -> int:
        with CaptureQueriesContext(connection) as queries:
            service(user_id=alice.pk, **kwargs)
        return len(queries.captured_queries)

    def queries_for_a_vacation() -> tuple[int, int]:
        start = queries_to(services.vacation_start, days=1)
        clock.advance(hours=1)
        return start, queries_to(services.vacation_end)

    matches = [start_timed_match(alice, bob) for _ in range(2)]  # Alice to act: her clocks stop and run on
    two = queries_for_a_vacation()
    matches += [start_timed_match(alice, bob) for _ in range(6)]
    assert queries_for_a_vacation() == two
    assert all(seat(match, 0).deadline is not None and seat(match, 0).paused_seconds is None for match in matches)
    assert (
        Notification.objects.filter(user=alice, kind=Notification.Kind.REMINDER, sent_at__isnull=True).count() == 8 * 2
    ), "every running clock has its two reminders again"
