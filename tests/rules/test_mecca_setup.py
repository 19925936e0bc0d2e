"""Mecca's set-up and first round: each colour takes a free entrance in seat order (players of two
colours taking turns, first colours first), the turn order starts with the youngest player
(yellow) and follows the entrances counter-clockwise, and the first round places one single
pilgrim. From the rule text (as summarised in docs/rules/mecca.md) and our reading of it (its
decisions table)."""

from __future__ import annotations

import pytest

from games.rules.mecca import GAME
from games.rules.mecca import explain as why
from games.rules.mecca.board import ENTRANCES, square_name
from games.rules.mecca.rules import PLACE, turn_order
from tests.rules.mecca_positions import BLUE, GREEN, RED, YELLOW, _one_round, play, refused, seat_of, setup_done, sq

# --- Game set up ---------------------------------------------------------------------------


def test_setup_each_colour_puts_one_pilgrim_on_a_free_entrance_in_seat_order():
    """ "Counter-clockwise, each player places 1 Pilgrim on one of the squares that signal the
    entrance" — seat 0 (the youngest player) first."""
    state = GAME.initial_state(4, {}, seed=1)
    assert GAME.legal_moves(state, 0) == sorted(square_name(e) for e in ENTRANCES)
    seen = []
    for entrance in ("f1", "a5", "k7", "f11"):
        seen.append(seat_of(state))
        state = play(state, entrance)
    assert seen == [0, 1, 2, 3]
    assert state.entrances == (sq("f1"), sq("a5"), sq("k7"), sq("f11"))
    assert state.hand == (17, 17, 17, 17)
    assert state.round == 1 and state.step == PLACE


@pytest.mark.parametrize(
    ("players", "seats", "colours"),
    [
        (2, [0, 1, 0, 1], ["yellow", "red", "green", "blue"]),
        (3, [0, 1, 2, 0, 1, 2], ["yellow", "red", "green", "blue", "black", "white"]),
    ],
)
def test_setup_two_colour_players_choose_for_their_colours_in_turn(players, seats, colours):
    """2-3 players: "Each player uses twice as many Pilgrims (s/he plays with two colors)";
    at set-up the seats take turns, first colours first."""
    state = GAME.initial_state(players, {}, seed=1)
    seen = []
    for entrance in [square_name(e) for e in ENTRANCES][: len(seats)]:
        view = GAME.view(state, None)
        seen.append((view["to_act"][0], view["colour_to_act"]))
        state = play(state, entrance)
    assert seen == list(zip(seats, colours, strict=True))


def test_setup_only_a_free_entrance_may_be_chosen():
    state = play(GAME.initial_state(4, {}, seed=1), "f1")
    assert "f1" not in GAME.legal_moves(state, 1)
    assert refused(state, "f1") == why.ENTRANCE_TAKEN.format(colour="yellow")
    assert refused(state, "f3").startswith("First every colour takes an entrance")
    assert refused(state, "pass").startswith("There is nothing to pass during set-up")
    assert refused(state, "xf1").startswith("Nothing can be removed during set-up")


def test_turn_order_starts_with_the_youngest_and_follows_the_entrances_counter_clockwise():
    """ "The youngest player starts, followed by the player whose Pilgrim is immediately to
    the right of that of the starting player" — the next entrance counter-clockwise
    (f1, a5, a7, f11, k7, k5)."""
    state = setup_done(4, ["f1", "k5", "a7", "f11"])
    assert turn_order(state.entrances) == (YELLOW, GREEN, BLUE, RED)
    seen = []
    for _ in range(4):
        seen.append(GAME.view(state, None)["colour_to_act"])
        state = GAME.apply(state, seat_of(state), GAME.legal_moves(state, seat_of(state))[0])
    assert seen == ["yellow", "green", "blue", "red"]
    assert GAME.view(state, None)["order"] == ["yellow", "green", "blue", "red"]


def test_turn_order_starts_with_yellow_wherever_its_entrance_is():
    state = setup_done(4, ["k7", "f1", "a7", "f11"])
    assert turn_order(state.entrances) == (YELLOW, RED, GREEN, BLUE)
    assert GAME.view(state, None)["colour_to_act"] == "yellow"


def test_in_two_colour_games_every_colour_takes_its_own_turn():
    state = setup_done(2, ["f1", "a5", "a7", "f11"])
    seen = []
    for _ in range(4):
        seen.append((seat_of(state), GAME.view(state, None)["colour_to_act"]))
        state = GAME.apply(state, seat_of(state), GAME.legal_moves(state, seat_of(state))[0])
    assert seen == [(0, "yellow"), (1, "red"), (0, "green"), (1, "blue")]


# --- The first turn ------------------------------------------------------------------------


def test_first_round_each_colour_places_one_single_pilgrim_next_to_one_of_another_colour():
    """ "In the first turn, each player places one single Pilgrim on the board, next to a
    Pilgrim in a different color.\""""
    state = setup_done(4, ["f1", "a5", "a7", "f11"])
    # Next to red's entrance pilgrim only: fine. Next to yellow's own: refused.
    assert "b4" in GAME.legal_moves(state, 0)
    assert refused(state, "e2") == why.OWN_COLOUR.format(colour="yellow")
    # b6 touches red on a5 and green on a7: two pilgrims, not one.
    assert refused(state, "b6") == why.WRONG_COUNT_FIRST.format(count="two")
    after = play(state, "b4")
    assert after.board[sq("b4")] == YELLOW
    assert GAME.view(after, None)["colour_to_act"] == "red", "one single pilgrim, then the next colour"


def test_from_the_second_round_a_turn_places_several_pilgrims():
    """ "From the second turn onwards, each player will place as many Pilgrims as s/he can.\""""
    state = setup_done(4, ["f1", "a5", "a7", "f11"])
    state = play(state, *_one_round(state))
    assert state.round == 2 and GAME.view(state, None)["colour_to_act"] == "yellow"
    assert GAME.view(state, None)["max_per_turn"] == 3
