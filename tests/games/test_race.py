"""Races on one match, in real concurrent transactions on PostgreSQL.

Each test releases two threads together with a barrier; each thread has its own
database connection, so the match row lock (``select_for_update``) is what orders them.
The winner is slowed down while it holds the lock, so the loser always arrives while
the lock is taken: without the lock both would read the same version and both write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import wraps
from types import ModuleType

import pytest
from django.db import OperationalError, connection, transaction
from django.urls import reverse

from games import services, tasks
from games.engine import get_game
from games.models import Match, MatchEvent, MoveRecord, Status
from games.services import SeatSpec, base, joining, leaving, turns
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.conftest import start_match

pytestmark = pytest.mark.django_db(transaction=True)

MANCALA = get_game("mancala")
# Long enough for the other thread to reach the lock, short enough not to slow the suite.
HOLD_LOCK_SECONDS = 0.2
NOT_POSTGRESQL = (
    "Race tests need PostgreSQL: SQLite ignores SELECT ... FOR UPDATE, so a passing run there proves nothing. "
    "Run with DATABASE_URL=postgres://..."
)


def require_postgresql() -> None:
    assert connection.vendor == "postgresql", NOT_POSTGRESQL


def run_together(*calls: Callable[[], object]) -> list[object]:
    """Run each call in its own thread, all released at once; each result is the value
    returned or the exception raised."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a racing thread hung: a lock was never released"
    return results


def hold_the_lock_longer(monkeypatch, *functions: tuple[ModuleType, str]) -> None:
    """Make the services pause inside their transaction, while the match row is locked: each
    (module, name) is the function as the service calls it."""
    for module, name in functions:
        original = getattr(module, name)

        @wraps(original)
        def slow(*args, _original=original, **kwargs):
            time.sleep(HOLD_LOCK_SECONDS)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, slow)


@pytest.fixture
def enqueued(monkeypatch):
    """Tasks handed to Celery after a commit, recorded instead of published."""
    calls: list[tuple] = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", lambda *args: calls.append(("ai_move", *args)))
    monkeypatch.setattr(notification_tasks, "enqueue_notification", lambda *args: calls.append(("notification", *args)))
    return calls


def split(results: list[object], winner_type: type) -> tuple[object, list[object]]:
    winners = [result for result in results if isinstance(result, winner_type)]
    assert len(winners) == 1, f"expected exactly one {winner_type.__name__}, got {results!r}"
    return winners[0], [result for result in results if result is not winners[0]]


def test_it_applies_the_same_move_sent_twice_at_once_only_once(alice, bob, enqueued, monkeypatch):
    require_postgresql()
    match = start_match(alice, bob)
    enqueued.clear()
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"))

    def submit():
        return services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    first, second = run_together(submit, submit)
    assert isinstance(first, MoveRecord) and second == first, "the second is told of the move already played"
    record = first
    match.refresh_from_db()
    assert match.version == 1
    assert list(MoveRecord.objects.filter(match=match)) == [record]
    assert match.state == MANCALA.dump(MANCALA.apply(MANCALA.initial_state(2, match.options, match.seed), 0, "1"))
    notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    assert enqueued == [("notification", notification.pk)], "only the committed move schedules its email"


def test_it_applies_one_of_two_different_moves_made_against_the_same_version(alice, bob, enqueued, monkeypatch):
    require_postgresql()
    match = start_match(alice, bob)
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"))

    def submit(move: str):
        return lambda: services.move_submit(match_id=match.pk, user=alice, move=move, expected_version=0)

    record, losers = split(run_together(submit("1"), submit("2")), MoveRecord)
    assert [type(loser) for loser in losers] == [services.StaleMove]
    match.refresh_from_db()
    assert match.version == 1
    assert MoveRecord.objects.filter(match=match).count() == 1
    initial = MANCALA.initial_state(2, match.options, match.seed)
    assert match.state == MANCALA.dump(MANCALA.apply(initial, 0, record.notation)), "the stored state is the winner's"


def test_it_seats_only_one_of_two_players_racing_for_the_last_seat(alice, bob, carol, enqueued, monkeypatch):
    require_postgresql()
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    hold_the_lock_longer(monkeypatch, (joining, "start_if_full"))

    def join(user):
        return lambda: services.match_join(match_id=match.pk, user=user)

    _, losers = split(run_together(join(bob), join(carol)), Match)
    assert [type(loser) for loser in losers] == [services.ServiceError]
    assert losers[0].message == joining.SEAT_TAKEN
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    seated = [seat.user for seat in match.seats.all()]
    assert seated[0] == alice and seated[1] in (bob, carol)
    assert MatchEvent.objects.filter(match=match, to_status=Status.ACTIVE, from_status=Status.OPEN).count() == 1


def test_it_plays_one_ai_move_when_two_ai_tasks_race_for_the_same_turn(alice, enqueued, monkeypatch):
    require_postgresql()
    match = start_match(alice, ai_level=1)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert ("ai_move", match.pk, 1) in enqueued
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"))

    def ai_task():
        return services.ai_turn_play(match_id=match.pk, expected_version=1)

    results = run_together(ai_task, ai_task)
    record = next(result for result in results if isinstance(result, MoveRecord))
    assert all(result in (None, record) for result in results), "the late task plays nothing: quietly"
    assert record.by_ai and record.ply == 1
    match.refresh_from_db()
    assert match.version == 2
    assert MoveRecord.objects.filter(match=match, by_ai=True).count() == 1


def test_it_never_applies_a_move_to_a_match_staff_aborted_meanwhile(alice, bob, staff, enqueued, monkeypatch):
    require_postgresql()
    match = start_match(alice, bob)
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"), (leaving, "set_status"))

    def move():
        return services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    def abort():
        return services.match_abort(match_id=match.pk, actor=staff, reason="Cheating reported")

    move_result, abort_result = run_together(move, abort)
    assert isinstance(abort_result, Match), f"the abort always succeeds, got {abort_result!r}"
    match.refresh_from_db()
    assert match.status == Status.ABORTED
    assert not match.seats.filter(to_act=True).exists()
    if isinstance(move_result, MoveRecord):
        # The move got the lock first: it stands, and the abort came after it.
        assert match.version == 1
        assert MoveRecord.objects.filter(match=match).count() == 1
    else:
        assert isinstance(move_result, services.MoveRejected) and move_result.message == services.NOT_IN_PLAY
        assert match.version == 0
        assert not MoveRecord.objects.filter(match=match).exists()


def test_a_move_and_the_opponents_vacation_at_once_both_go_through(alice, bob, enqueued, monkeypatch):
    """The move locks the match and then writes rows that point at Bob; the vacation locks Bob
    and then each of his matches. With FOR UPDATE on Bob, PostgreSQL found a deadlock and
    killed one of them."""
    require_postgresql()
    match = start_match(alice, bob)
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"))

    def move():
        return services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    def vacation():
        time.sleep(HOLD_LOCK_SECONDS / 2)  # the move holds the match row by now
        return services.vacation_start(user_id=bob.pk, days=3)

    move_result, vacation_result = run_together(move, vacation)
    assert isinstance(move_result, MoveRecord), move_result
    assert not isinstance(vacation_result, Exception), vacation_result
    match.refresh_from_db()
    bob.refresh_from_db()
    assert match.version == 1 and bob.vacation_until is not None


def test_a_move_that_cannot_get_the_match_row_fails_instead_of_hanging(alice, bob, enqueued, monkeypatch):
    """Something holds the match row (a stuck transaction, a bug): the move gives up after the
    lock timeout with an error the player sees, not a request that hangs; the timeout is
    the move transaction's own (SET LOCAL), and the next move goes through."""
    require_postgresql()
    match = start_match(alice, bob)
    monkeypatch.setattr(base, "LOCK_TIMEOUT", "300ms")

    def hold_the_row():
        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match.pk)
            time.sleep(2)

    def move():
        time.sleep(0.2)  # the other thread holds the row by now
        try:
            services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
        except OperationalError as error:
            return error
        return None

    # Without the timeout the move would wait the 2 s out and go through, with no error.
    _, error = run_together(hold_the_row, move)
    assert error is not None and "lock timeout" in str(error), error
    assert services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0).ply == 0
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == "0", "the timeout stays in the move's transaction"


def test_a_page_read_while_a_move_commits_says_whose_turn_it_is_in_the_position_it_draws(alice, bob, client, enqueued):
    """The page reads the match, then its seats: a move committed between the two reads drew the
    position before it with the seats after it, "Your turn." over a board that offered nothing
    (seen once under bench/load.py). The next poll redrew it, but the turn shown is the board's."""
    require_postgresql()
    match = start_match(alice, bob)
    state = MANCALA.load(match.state)
    move = next(m for m in MANCALA.legal_moves(state, 0) if MANCALA.to_act(MANCALA.apply(state, 0, m)) == (1,))
    moved: list[object] = []

    def alice_moves_before_the_seats_are_read(execute, sql, params, many, context):
        if not moved and sql.startswith('SELECT "games_seat"'):
            moved.extend(
                run_together(lambda: services.move_submit(match_id=match.pk, user=alice, move=move, expected_version=0))
            )
        return execute(sql, params, many, context)

    client.force_login(bob)
    with connection.execute_wrapper(alice_moves_before_the_seats_are_read):
        html = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert isinstance(moved[0], MoveRecord), moved
    assert 'name="version" value="0"' in html, "the page drew the position before Alice's move"
    assert "<strong>Your turn.</strong>" not in html
    assert "Waiting for" in html and "Alice" in html
