"""The replay page: it steps through every position and names each seat as it was then (its
player before the AI took it, an AI at the level it played), with its colour, and asks for no
clicks."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games import services
from games.engine import get_game
from games.models import MoveRecord
from games.services import SeatSpec
from tests.conftest import start_match
from tests.games.conftest import HTMX, MANCALA, play_moves, start_timed_match


@pytest.mark.parametrize("slug", ["jeexa", "mancala"])  # Jeexa's tables, Mancala's row labels
def test_the_replay_names_a_seat_as_it_was_before_the_ai_took_it(alice_client, alice, bob, staff, slug):
    match = services.match_create(
        creator=alice, game_slug=slug, options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    game = get_game(slug)
    players = {0: alice, 1: bob}
    while len(set(MoveRecord.objects.filter(match=match).values_list("seat", flat=True))) < 2:
        match.refresh_from_db()
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        services.move_submit(
            match_id=match.pk, user=players[seat], move=game.legal_moves(state, seat)[0], expected_version=match.version
        )
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    match.refresh_from_db()
    while not MoveRecord.objects.filter(match=match, by_ai=True).exists():
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        move = game.ai_move(state, seat, 1, match.seed)
        services.move_submit(
            match_id=match.pk,
            user=None if seat else alice,
            ai_seat=seat or None,
            move=move,
            expected_version=match.version,
        )
        match.refresh_from_db()
    url = reverse("match_replay", args=[match.pk])

    def board_at(**query) -> str:
        page = alice_client.get(url, query).content.decode()
        return re.search(r'<section class="board">(.*)</section>', page, re.S)[1]

    assert "Bob" in board_at(ply=1) and "AI (Easy)" not in board_at(ply=1), "Bob still played that seat"
    assert "AI (Easy)" in board_at() and "Bob" not in board_at()


def play_against_the_ai(match, alice, count):
    """``count`` moves, Alice's and the AI's (seat 1), each the easy AI's choice."""
    for _ in range(count):
        match.refresh_from_db()
        state = MANCALA.load(match.state)
        seat = MANCALA.to_act(state)[0]
        services.move_submit(
            match_id=match.pk,
            user=None if seat else alice,
            ai_seat=seat or None,
            move=MANCALA.ai_move(state, seat, 1, seed=match.version),
            expected_version=match.version,
        )
    match.refresh_from_db()


def replay_players(client, match, ply: int) -> str:
    page = client.get(reverse("match_replay", args=[match.pk]), {"ply": ply}).content.decode()
    return " ".join(strip_tags(re.search(r'<p class="replay-players">(.*?)</p>', page, re.S)[1]).split())


def test_the_replay_names_an_ai_at_the_level_it_played_before_staff_changed_it(alice_client, alice, staff):
    match = start_match(alice, ai_level=1)
    play_against_the_ai(match, alice, 6)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=2, actor=staff, reason="Too easy")
    play_against_the_ai(match, alice, 4)

    assert replay_players(alice_client, match, 0) == "Players: Alice · AI (Easy)"
    assert replay_players(alice_client, match, 6) == "Players: Alice · AI (Easy)", "move 6 came before the change"
    assert replay_players(alice_client, match, 7) == "Players: Alice · AI (Strong)"
    assert replay_players(alice_client, match, 10) == "Players: Alice · AI (Strong)"


def test_the_replay_names_an_ai_whose_level_changed_before_the_first_move_at_its_new_level(alice_client, alice, staff):
    match = start_match(alice, ai_level=1)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=2, actor=staff, reason="")
    play_against_the_ai(match, alice, 2)

    assert replay_players(alice_client, match, 0) == "Players: Alice · AI (Strong)"


def test_the_replay_says_who_plays_which_colour(client, alice, bob):
    match = start_timed_match(alice, bob, game="mesopotamia")
    client.force_login(bob)
    page = " ".join(strip_tags(client.get(reverse("match_replay", args=[match.pk])).content.decode()).split())
    assert "Players: Alice (Blue) · Bob (Yellow)" in page


def test_the_replay_names_ai_seats_once_with_their_colour(alice, alice_client):
    seats = [SeatSpec("creator"), *(SeatSpec("ai", ai_level=2) for _ in range(3))]
    match = services.match_create(creator=alice, game_slug="mecca", options={}, seats=seats)
    page = " ".join(strip_tags(alice_client.get(reverse("match_replay", args=[match.pk])).content.decode()).split())
    assert "Players: Alice (Yellow) · AI (Strong, Red) · AI (Strong, Green) · AI (Strong, Blue)" in page


def test_replay_steps_through_every_position(alice_client, match, alice, bob):
    play_moves(match, {0: alice, 1: bob}, 5)
    url = reverse("match_replay", args=[match.pk])
    start = alice_client.get(url, {"ply": 0}).content.decode()
    assert "The starting position" in start and "Position 0 of 5" in start
    step = alice_client.get(url, {"ply": 1}, **HTMX).content.decode()
    assert "<html" not in step and "After move 1: Alice sows tile" in step
    assert "Position 5 of 5" in alice_client.get(url, {"ply": 99}).content.decode()
    assert "Position 5 of 5" in alice_client.get(url, {"ply": "junk"}).content.decode()


def test_the_mesopotamia_replay_does_not_ask_for_clicks(client, alice, bob):
    """The map's key told a replay's reader to choose a tribe and a hex to make a move."""
    match = start_timed_match(alice, bob, game="mesopotamia")
    client.force_login(alice)
    playing = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    replay = client.get(reverse("match_replay", args=[match.pk]) + "?ply=0").content.decode()
    how_to_play = "choose one, then a highlighted hex"
    assert how_to_play in playing
    assert how_to_play not in replay and "The map of Mesopotamia" in replay
    assert "meso-camp" not in replay and "meso-dest" not in replay  # nothing on the replay's map to click
