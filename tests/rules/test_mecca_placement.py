"""Mecca: where a pilgrim may go and when a turn ends. Never alone, never next to its own colour,
the nth pilgrim of a turn next to n pilgrims of n other colours, as many as the player can
place; the purple mats, the unused entrances and the Kaaba; a colour that cannot place passes by
itself. From the rule text (as summarised in docs/rules/mecca.md) and our reading of it (its
decisions table)."""

from __future__ import annotations

import random

import pytest

from games.rules.mecca import GAME
from games.rules.mecca import explain as why
from games.rules.mecca.board import (
    CLOSE_TO_KAABA,
    COLOURS,
    CRESCENTS,
    ENTRANCES,
    KAABA,
    NEIGHBOURS,
    PURPLE,
    square_name,
)
from games.rules.mecca.rules import COLOURS_IN_PLAY, PLACE
from tests.rules.mecca_positions import (
    BLUE,
    RED,
    WORKED_EXAMPLE,
    _one_round,
    _rows,
    play,
    position,
    refused,
    seat_of,
    sq,
)

# --- Taking turns: where a pilgrim may go ----------------------------------------------------


def test_a_pilgrim_can_never_be_alone():
    """ "A Pilgrim must always be next (even if diagonally) to another. It can never be alone.\""""
    state = position(WORKED_EXAMPLE)
    assert refused(state, "d2") == why.ALONE


def test_next_to_includes_diagonals():
    state = position(WORKED_EXAMPLE)
    # d10 touches the yellow pilgrim on e9 only across a corner.
    assert "d10" in GAME.legal_moves(state, RED)


def test_a_pilgrim_may_never_touch_one_of_its_own_colour():
    """ "A Pilgrim can never be placed (by any side) next to a Pilgrim in its same color.\""""
    state = position(WORKED_EXAMPLE, colour=BLUE)
    # g10 touches only the blue pilgrim on g9.
    assert refused(state, "g10") == why.OWN_COLOUR.format(colour="blue")
    assert "d10" in GAME.legal_moves(state, BLUE)


def test_first_pilgrim_must_touch_exactly_one_pilgrim():
    """ "The first Pilgrim to be placed must be next to only one Pilgrim in a different color.\""""
    state = position(WORKED_EXAMPLE)
    # f9 touches yellow e9, green f8 and blue g9.
    assert refused(state, "f9") == why.WRONG_COUNT_FIRST.format(count="three")
    assert "f9" not in GAME.legal_moves(state, RED)


def test_second_pilgrim_must_touch_exactly_two_pilgrims_of_two_other_colours():
    """ "... a second Pilgrim, which must be next to two Pilgrims (no more, no less) in two
    colors different from his/hers.\""""
    state = play(position(WORKED_EXAMPLE), "d10")
    assert "f10" in GAME.legal_moves(state, RED)  # yellow e9 and blue g9
    assert refused(state, "i7") == (
        "Your 2nd pilgrim must touch exactly two pilgrims of two other colours; this square touches one."
    )
    assert refused(state, "e10") == why.OWN_COLOUR.format(colour="red")


def test_third_pilgrim_must_touch_three_pilgrims_of_three_other_colours_never_two_of_one():
    """ "A Pilgrim cannot be placed adjacent to 2 or more sameless color Pilgrims": the red
    player's third pilgrim may not go where it touches 1 green and 2 blue pilgrims."""
    state = play(position(WORKED_EXAMPLE), "d10", "f10")
    assert refused(state, "j6") == why.SAME_COLOUR_TWICE.format(count="two", colour="blue")
    assert GAME.legal_moves(state, RED) == ["h4"]


def test_a_square_touching_three_pilgrims_of_one_colour_is_explained_with_three():
    """Pilgrims of one colour never touch each other, yet up to four of them can touch one
    empty square: i4 touches the blue pilgrims on h3, j3 and h5, and the reason says three."""
    state = position("""
        .....Y.....
        ...........
        .......B.B.
        ...........
        R......B...
        ...........
        G.........B
        ...........
        ...........
        ...........
        ...........
    """)
    assert refused(state, "i4") == (
        "This square touches three blue pilgrims; the pilgrims it touches must all be of different colours."
    )


def test_placing_is_compulsory_while_a_square_takes_the_next_pilgrim():
    """ "Each player will place as many Pilgrims as s/he can": no passing while placing."""
    state = play(position(WORKED_EXAMPLE), "d10")
    assert GAME.to_act(state) == (RED,) and state.placed == 1
    assert refused(state, "pass") == why.PLACING_IS_COMPULSORY.format(nth="2nd")
    assert refused(state, "xi6") == why.REMOVE_NEEDS_PLACEMENTS.format(threshold=3)


def test_a_removal_asked_for_while_a_square_takes_the_next_pilgrim_says_placing_comes_first():
    """Six colours: removal from the 4th pilgrim on, but "as many as you can" comes first."""
    rng = random.Random(0)
    state = GAME.initial_state(6, {}, 0)
    while not (state.step == PLACE and state.placed == 4):
        state = GAME.apply(state, seat_of(state), rng.choice(GAME.legal_moves(state, seat_of(state))))
    assert refused(state, "xf1") == why.PLACE_BEFORE_REMOVING.format(nth="5th")


SPARSE = """
    .....Y.....
    ...........
    ...........
    ...........
    R..........
    ...........
    G.........B
    ...........
    ...........
    ...........
    ...........
"""


def test_the_turn_ends_when_no_square_takes_the_next_pilgrim():
    """ "When a player cannot place any more Pilgrims, his/her turn is over": after e2 no
    square touches exactly two pilgrims of two colours other than red."""
    state = position(SPARSE)
    after = play(state, "e2")
    assert GAME.view(after, None)["colour_to_act"] == "green" and after.placed == 0
    assert GAME.describe(state, RED, "e2") == (
        "Red places a pilgrim on e2 (1st of the turn); no square takes a 2nd pilgrim, so the turn ends."
    )


def test_the_turn_ends_when_a_colour_has_no_pilgrim_left_to_place():
    state = position(WORKED_EXAMPLE, hand={RED: 2})
    after = play(state, "d10", "f10")
    assert GAME.view(after, None)["colour_to_act"] == "green", "h4 was free for a 3rd, but red has none"
    assert after.hand[RED] == 0


@pytest.mark.parametrize(("players", "most", "threshold"), [(2, 3, 3), (3, 5, 4), (4, 3, 3), (5, 4, 4), (6, 5, 4)])
def test_most_pilgrims_per_turn_and_the_removal_threshold(players, most, threshold):
    """Up to "number of players in the game minus one" (two colours count as two players:
    3 with 2 players, 5 with 3); a removal needs 3 placed with 2 or 4 players, 4 with 3, 5, 6."""
    state = GAME.initial_state(players, {}, seed=1)
    state = play(state, *[square_name(e) for e in ENTRANCES][: COLOURS_IN_PLAY[players]])
    view = GAME.view(state, None)
    assert view["max_per_turn"] == 1, "the first round places one"
    state = play(state, *_one_round(state))
    view = GAME.view(state, None)
    assert (view["max_per_turn"], view["removal_threshold"]) == (most, threshold)


# --- The board ------------------------------------------------------------------------------


def test_purple_mats_are_out_of_play_with_2_or_4_players():
    """ "In games for 2 or 4 players all the red and yellow mats (or squares) will be used.\""""
    picture = _rows({"f1": "Y", "a5": "R", "a7": "G", "f11": "B", "c2": "Y"}, keep=("f1", "a5", "a7", "f11"), colours=4)
    state = position(picture, colour=RED)
    # b1 is a purple mat touching only the yellow pilgrim on c2.
    assert "b1" not in GAME.legal_moves(state, RED)
    assert refused(state, "b1") == why.PURPLE_OUT
    assert GAME.view(state, None)["purple_in_play"] is False


@pytest.mark.parametrize("players", [3, 5, 6])
def test_purple_mats_are_in_play_with_3_5_or_6_players(players):
    """ "In games for 3, 5 or 6 players, the purple mats will also be used" — 3 players play
    six colours."""
    picture = _rows(
        {"f1": "Y", "a5": "R", "a7": "G", "f11": "B", "k7": "K", "k5": "W", "c2": "Y"},
        keep=("f1", "a5", "a7", "f11", "k7", "k5"),
        colours=COLOURS_IN_PLAY[players],
    )
    state = position(picture, players=players, colour=RED)
    assert "b1" in GAME.legal_moves(state, seat_of(state))
    assert GAME.view(state, None)["purple_in_play"] is True


def test_unused_entrances_stay_empty_for_the_rest_of_the_game():
    """ "The entrance squares that are not used at the beginning of the game will have to
    remain unoccupied during the rest of the game.\""""
    picture = _rows({"f1": "Y", "a5": "R", "a7": "G", "f11": "B", "j6": "Y"}, keep=("f1", "a5", "a7", "f11"), colours=4)
    state = position(picture, colour=RED)
    # k7 and k5 were not chosen; each touches only the yellow pilgrim on j6.
    assert "k7" not in GAME.legal_moves(state, RED) and "k5" not in GAME.legal_moves(state, RED)
    assert refused(state, "k7") == why.UNUSED_ENTRANCE
    assert GAME.view(state, None)["unused_entrances"] == ["k7", "k5"]


def test_chosen_entrances_take_no_second_pilgrim_and_the_kaaba_is_never_played():
    state = position(WORKED_EXAMPLE)
    assert refused(state, "f1") == why.TAKEN.format(colour="yellow", square="f1")
    assert refused(state, "f6") == why.KAABA_SQUARE


def test_board_geometry_matches_the_spec():
    assert len(KAABA) == 9 and len(PURPLE) == 40 and len(CLOSE_TO_KAABA) == 16
    assert [square_name(e) for e in ENTRANCES] == ["f1", "a5", "a7", "f11", "k7", "k5"]
    assert {COLOURS[c]: sorted(square_name(s) for s in CRESCENTS[c]) for c in range(6)} == {
        "yellow": ["c3", "i9"],
        "red": ["c9", "i3"],
        "green": ["e3", "g9"],
        "blue": ["e9", "g3"],
        "black": ["c5", "i7"],
        "white": ["c7", "i5"],
    }
    assert len(NEIGHBOURS[sq("a1")]) == 3 and len(NEIGHBOURS[sq("f6")]) == 8


# --- Passing by itself ------------------------------------------------------------------------

# From a real game (entrances: yellow a5, red a7, green f11, blue k5): red's only square for a
# 2nd pilgrim is k6, and after it green has no square touching exactly one pilgrim that is
# not green.
GREEN_PASSES = """
    ...........
    ...........
    ...........
    .G......GR.
    YR........B
    .......YGY.
    RBYR...R...
    .G....Y.BG.
    ....B.RGY..
    ...R.......
    ....YGY....
"""


def test_a_colour_that_cannot_place_passes_by_itself():
    """Spec: "A colour with no legal first placement, or no pilgrims in hand, passes
    automatically" — the seat is never asked to choose from nothing."""
    state = position(GREEN_PASSES, colour=RED, placed=1, rnd=4)
    assert GAME.legal_moves(state, RED) == ["k6"]
    after = play(state, "k6")
    view = GAME.view(after, None)
    assert view["passed"] == ["green"] and view["colour_to_act"] == "blue"
    assert GAME.describe(state, RED, "k6") == (
        "Red places a pilgrim on k6 (2nd of the turn); no square takes a 3rd pilgrim, so the turn ends; "
        "Green cannot place and passes."
    )
