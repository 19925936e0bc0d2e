"""What the match page and the replay mark as the last move: for a player the others moved
after, everything since their own last move; otherwise the latest turn (a run of one seat's
moves); in the replay, the one move that led to the position shown. Marks are drawn from the
move records the page reads anyway: the page's query count does not grow with them."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Seat, Status
from games.replay import marks_from
from tests.conftest import start_match
from tests.games.conftest import HTMX, count_queries, play_moves


def records(*seats: int) -> list:
    return [SimpleNamespace(seat=seat, ply=ply, notation=str(ply)) for ply, seat in enumerate(seats)]


@pytest.mark.parametrize(
    ("seats", "viewer", "start"),
    [
        ((0, 1), 0, 1),  # the opponent answered: their move
        ((0, 1), 1, 1),  # my own move, nobody after: the latest turn, mine
        ((0, 1, 0), 1, 2),  # since my move: the opponent's
        ((0, 1, 1, 2, 0, 0), 1, 3),  # back after a while: every move of the others since mine
        ((0, 1, 1, 2, 0, 0), None, 4),  # a spectator: the latest turn, both of its steps
        ((0, 0, 0), 1, 0),  # never moved: the latest turn
        ((0, 0, 0), 0, 0),  # my own turn of three steps
        ((0,), None, 0),
    ],
)
def test_marks_count_from_the_viewers_last_move_or_the_latest_turn(seats, viewer, start):
    assert marks_from(records(*seats), viewer) == start


def test_the_match_page_marks_the_opponents_move_and_the_replay_the_move_shown(client, alice, bob, match):
    play_moves(match, {0: alice, 1: bob}, 2)
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "data-last-move" in page
    replay = client.get(reverse("match_replay", args=[match.pk]) + "?ply=1").content.decode()
    assert "data-last-move" in replay
    start = client.get(reverse("match_replay", args=[match.pk]) + "?ply=0").content.decode()
    assert "data-last-move" not in start  # the starting position: nothing moved yet


def test_marking_the_last_moves_costs_no_query_per_move(client, alice, bob):
    match = start_match(alice, bob, variant="ethiopian")  # played slowly, lasts hundreds of moves
    client.force_login(alice)
    url = reverse("match_detail", args=[match.pk])
    play_moves(match, {0: alice, 1: bob}, 1)
    client.get(url)  # the presence written: the page writes it again only when due
    few = count_queries(client, "get", url)
    play_moves(match, {0: alice, 1: bob}, 24, slowly=True)  # past a replay checkpoint (every 20)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE and match.version == 25
    assert count_queries(client, "get", url) == few
    assert "data-last-move" in client.get(url, **HTMX).content.decode()


def poll_trigger(client, match) -> str:
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    return re.search(r'hx-trigger="(every \d+ms)"', page).group(1)


def test_the_page_asks_often_only_while_a_move_may_come_any_second(client, alice, bob):
    client.force_login(alice)
    against_ai = start_match(alice, ai_level=1)
    services.move_submit(match_id=against_ai.pk, user=alice, move="1", expected_version=0)
    assert poll_trigger(client, against_ai) == "every 500ms"  # the AI is thinking
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert poll_trigger(client, match) == "every 3000ms"  # Bob is away
    Seat.objects.filter(match=match, user=bob).update(last_seen_at=timezone.now())
    assert poll_trigger(client, match) == "every 1000ms"  # Bob has the match open
    client.force_login(bob)
    assert poll_trigger(client, match) == "every 3000ms"  # his own turn: nothing comes by itself
