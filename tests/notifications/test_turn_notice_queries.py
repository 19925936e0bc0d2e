"""Writing a "your turn" notice takes the same few queries however long the match has run (#42),
and says what it said before: the lines since the player's last move, with the move log's events
between moves, the latest ones only in a long absence, "so far" before their first move."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import TurnNotice
from games import signals
from games.models import Match, MatchEvent, MoveRecord, Seat
from notifications.models import Notification
from notifications.services.texts import since_your_last_move
from tests.games.conftest import start_timed_match
from tests.notifications.conftest import settle

# One query reads the seat's last ply, the lines since and the channels whose "your turn" waits;
# then the row is written (or the one waiting brought up to date).
TURN_NOTICE_QUERIES = 2


def played(match: Match, seats: list[int]) -> None:
    """Move records for ``seats[ply]`` at each ply, described by their number: only the texts read them."""
    MoveRecord.objects.bulk_create(
        MoveRecord(match=match, ply=ply, seat=seat, notation="1", description=f"Move {ply + 1}")
        for ply, seat in enumerate(seats)
    )


def logged(match: Match, ply: int, reason: str) -> None:
    """An event shown in the move log before move ``ply``."""
    MatchEvent.objects.create(match=match, from_status="active", to_status="active", reason=reason, ply=ply)


def bobs_turn_started(match: Match) -> CaptureQueriesContext:
    seat = Seat.objects.select_related("user").get(match=match, number=1)
    with CaptureQueriesContext(connection) as queries:
        signals.turn_started.send(Match, match=match, seat=seat, watching=False)
    return queries


def bobs_latest_notice() -> Notification:
    return Notification.objects.filter(user__username="bob", kind=Notification.Kind.YOUR_TURN).latest("pk")


def bobs_turn_notice(match: Match) -> Notification:
    bobs_turn_started(match)
    return bobs_latest_notice()


@pytest.fixture
def started(clock, alice, bob):
    match = start_timed_match(alice, bob)
    settle(clock)  # the invitation and Alice's first "your turn" are sent: none waits
    return match


@pytest.mark.parametrize("moves", [1, 200])
def test_a_your_turn_notice_takes_as_many_queries_after_one_move_as_after_200(started, moves):
    played(started, [ply % 2 for ply in range(moves)])
    queries = bobs_turn_started(started)
    assert len(queries) == TURN_NOTICE_QUERIES, [query["sql"] for query in queries]


def test_a_long_absence_takes_no_more_queries_to_count_what_was_left_out(started):
    played(started, [1] + [0] * 40)  # 40 moves since Bob's: the email counts them all
    queries = bobs_turn_started(started)
    assert len(queries) == TURN_NOTICE_QUERIES, [query["sql"] for query in queries]
    assert "(12 of 40; the match page lists them all):\n- Move 30\n" in bobs_latest_notice().body


def test_a_your_turn_still_waiting_is_brought_up_to_date_in_as_few_queries(started, clock):
    played(started, [0])
    bobs_turn_started(started)  # not sent yet: the mail server is down, say
    clock.advance(minutes=5)
    queries = bobs_turn_started(started)
    assert len(queries) == TURN_NOTICE_QUERIES, [query["sql"] for query in queries]  # its UPDATE, no INSERT
    waiting = Notification.objects.get(user__username="bob", kind=Notification.Kind.YOUR_TURN, sent_at=None)
    assert waiting.created_at == clock.now


def test_a_waiting_your_turn_is_brought_up_to_date_and_only_a_channel_without_one_gets_a_row(started, clock, bob):
    played(started, [0])
    bobs_turn_started(started)  # the email waits
    bob.webhook_url = "https://hooks.example.com/bob"
    bob.save()
    clock.advance(minutes=5)
    queries = bobs_turn_started(started)
    assert len(queries) == TURN_NOTICE_QUERIES + 1, [query["sql"] for query in queries]  # the UPDATE too
    rows = Notification.objects.filter(user=bob, kind=Notification.Kind.YOUR_TURN, sent_at=None)
    assert sorted(rows.values_list("channel", "created_at")) == [("email", clock.now), ("webhook", clock.now)]


def test_a_digest_player_s_turn_reads_nothing_of_the_match(started, bob):
    bob.turn_notice = TurnNotice.DIGEST
    bob.save()
    played(started, [0])
    queries = bobs_turn_started(started)
    assert not [query for query in queries if "moverecord" in query["sql"]], "no lines an email would list"
    assert not Notification.objects.filter(user=bob, kind=Notification.Kind.YOUR_TURN).exists()
    assert Notification.objects.filter(user=bob, kind=Notification.Kind.DIGEST, sent_at=None).exists()


def test_it_lists_the_moves_and_the_logs_events_since_the_players_last_move(started):
    played(started, [0, 1, 0, 0, 1, 0])
    logged(started, 1, "Before Bob's first move.")
    logged(started, 5, "Bob's time ran out: the AI took his seat.")
    logged(started, 5, "Carol took the seat.")
    logged(started, 6, "Staff gave Bob an hour.")
    body = bobs_turn_notice(started).body
    assert (
        "What happened since your last move:\n"
        "- Bob's time ran out: the AI took his seat.\n"
        "- Carol took the seat.\n"
        "- Move 6\n"
        "- Staff gave Bob an hour.\n\n"
        "Make your move: "
    ) in body


def test_before_the_players_first_move_it_says_what_happened_so_far(started):
    played(started, [0])
    logged(started, 0, "Every seat is taken.")
    body = bobs_turn_notice(started).body
    assert "What happened so far:\n- Every seat is taken.\n- Move 1\n\n" in body
    assert since_your_last_move(started, Seat.objects.get(match=started, number=1))["first_turn"]


def test_after_a_long_absence_it_lists_the_latest_lines_and_counts_them_all(started):
    played(started, [1] + [0] * 20)
    for ply in range(15, 22):
        logged(started, ply, f"Event before move {ply + 1}")
    since = since_your_last_move(started, Seat.objects.get(match=started, number=1))
    latest = [
        "Move 16",
        "Event before move 17",
        "Move 17",
        "Event before move 18",
        "Move 18",
        "Event before move 19",
        "Move 19",
        "Event before move 20",
        "Move 20",
        "Event before move 21",
        "Move 21",
        "Event before move 22",
    ]
    assert since == {"since": latest, "more_before": True, "total": 27, "first_turn": False}


def test_with_nothing_since_the_players_last_move_it_lists_nothing(started):
    played(started, [0, 1])
    since = since_your_last_move(started, Seat.objects.get(match=started, number=1))
    assert since == {"since": [], "more_before": False, "total": 0, "first_turn": False}
