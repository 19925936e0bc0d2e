"""The replay's positions: rebuilt from kept positions, they are the positions of the match."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import replay, selectors, services
from games.replay import CHECKPOINT_EVERY, position_at, replay_state
from games.services import SeatSpec
from tests.conftest import start_match
from tests.games.conftest import HTMX, MANCALA, play_moves, play_random_moves


@pytest.fixture(autouse=True)
def no_kept_positions(monkeypatch):
    monkeypatch.setattr(replay, "_checkpoints", type(replay._checkpoints)())


def started(slug: str, alice, bob):
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    match = services.match_create(creator=alice, game_slug=slug, options={}, seats=seats)
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("slug", ["mancala", "mecca", "jeexa", "mesopotamia"])
def test_every_position_the_replay_shows_is_the_one_rebuilt_from_the_seed(alice, bob, slug):
    match = started(slug, alice, bob)
    play_random_moves(match, {0: alice, 1: bob}, random.Random(7), limit=3 * CHECKPOINT_EVERY + 5)
    match.refresh_from_db()
    game, moves = match.game_obj, selectors.match_moves(match)
    assert match.version == len(moves) > CHECKPOINT_EVERY
    assert game.dump(position_at(match, moves, match.version)) == match.state
    # Back from the end, then anywhere: most of these start from a kept position.
    plies = [*range(match.version, -1, -1), *random.Random(1).sample(range(match.version + 1), match.version + 1)]
    for ply in plies:
        assert game.dump(position_at(match, moves, ply)) == game.dump(replay_state(match, moves[:ply])), ply


def test_a_step_near_the_end_of_a_long_match_does_not_replay_it_from_the_start(client, alice, bob, monkeypatch):
    """Every step applied all the moves before it again: 650 for a long Jeexa match, over 100 ms a step."""
    match = start_match(alice, bob, variant="ethiopian")
    play_moves(match, {0: alice, 1: bob}, 6 * CHECKPOINT_EVERY, slowly=True)
    match.refresh_from_db()
    last = match.version
    applied = []
    real_apply = type(MANCALA).apply
    monkeypatch.setattr(type(MANCALA), "apply", lambda game, *args: applied.append(1) or real_apply(game, *args))
    client.force_login(alice)
    url = reverse("match_replay", args=[match.pk])

    def moves_applied(ply: int) -> int:
        applied.clear()
        assert client.get(url, {"ply": ply}, **HTMX).status_code == 200
        return len(applied)

    # The last position is the stored one; the position before it, which its last-move marks count
    # from, is replayed from the start once. Each position after that is one move from the one before
    # it, itself replayed from the nearest kept position; the board then replays the move it marks (1).
    assert last == 6 * CHECKPOINT_EVERY and moves_applied(last) == (last - 1) + 1
    assert [moves_applied(ply) for ply in (last - 1, last - 2, 3 * CHECKPOINT_EVERY + 1)] == [
        (CHECKPOINT_EVERY - 2) + 1 + 1,
        (CHECKPOINT_EVERY - 3) + 1 + 1,
        0 + 1 + 1,
    ]
