"""Mecca: removing a pilgrim. Earned by 3 placements (4 with 3, 5 or 6 players), optional, only
of a pilgrim next to two of one colour and never of one on an entrance; the pilgrims it leaves
alone go back; the text's worked example and counter-example, and the removals a player coming
back is shown. From the rule text (as summarised in docs/rules/mecca.md) and our reading of it
(its decisions table)."""

from __future__ import annotations

import json
import random

import pytest

from games.rules.mecca import GAME
from games.rules.mecca import explain as why
from games.rules.mecca.rules import COLOURS_IN_PLAY, EMPTY, PLACE, REMOVE
from tests.rules.mecca_positions import (
    BLUE,
    COUNTER_EXAMPLE,
    GREEN,
    RED,
    WORKED_EXAMPLE,
    YELLOW,
    _rows,
    play,
    position,
    refused,
    seat_of,
    sq,
)

# --- Removing a pilgrim -----------------------------------------------------------------------


def test_worked_example_red_places_three_then_removes_blue_and_the_isolated_green_goes_back():
    """The text's figures 1-6: red's first pilgrim next to one yellow, the second next to
    yellow and blue, the third next to three colours; then red removes a blue pilgrim that
    touches two greens, and the green pilgrim it leaves alone goes back too."""
    state = position(WORKED_EXAMPLE)
    state = play(state, "d10", "f10", "h4")
    assert state.step == REMOVE and GAME.to_act(state) == (RED,)
    assert "xi6" in GAME.legal_moves(state, RED) and "pass" in GAME.legal_moves(state, RED)
    line = GAME.describe(state, RED, "xi6")
    assert line == "Red removes the blue pilgrim on i6; the green pilgrim on j5, left with no neighbour, goes back."
    after = play(state, "xi6")
    assert after.board[sq("i6")] == EMPTY and after.board[sq("j5")] == EMPTY
    assert after.board[sq("h5")] == GREEN, "the other green still touches yellow g4 and red h4"
    assert after.hand[BLUE] == state.hand[BLUE] + 1 and after.hand[GREEN] == state.hand[GREEN] + 1
    assert GAME.view(after, None)["last_removal"] == {
        "by": "red",
        "square": "i6",
        "colour": "blue",
        "returned": [["j5", "green"]],
    }
    assert GAME.view(after, None)["colour_to_act"] == "green"


# Yellow (entrance k5) has placed two pilgrims this turn; only red's f1 touches two of one
# colour (yellow e1 and g1), and a pilgrim on an entrance can never be removed.
NOTHING_TO_REMOVE = """
    ....YRY....
    ......B....
    ...........
    ...........
    ..........Y
    ...........
    .........YG
    ...........
    ...........
    ...G.......
    ....RB.....
"""


def test_a_removal_earned_with_no_pilgrim_to_remove_is_skipped_and_the_log_says_so():
    """Yellow's 3rd pilgrim earns a removal, but no pilgrim may be removed: the step is
    skipped by itself, and the log said nothing of it."""
    state = position(NOTHING_TO_REMOVE, colour=YELLOW, placed=2, rnd=2)
    after = play(state, "e10")
    assert after.step == PLACE and after.colour != YELLOW
    assert GAME.describe(state, YELLOW, "e10") == (
        "Yellow places a pilgrim on e10 (3rd of the turn); no pilgrim can be removed."
    )


def test_worked_counter_example_a_cut_off_pair_stays_on_the_board():
    """ "If it was joined to another Pilgrim (although the two Pilgrims were separated from
    the rest), then this green Pilgrim could not be removed.\""""
    state = play(position(COUNTER_EXAMPLE), "d10", "f10", "h4")
    after = play(state, "xi6")
    assert after.board[sq("j5")] == GREEN and after.board[sq("j4")] == YELLOW
    assert after.last_removal.returned == ()
    assert GAME.describe(state, RED, "xi6") == "Red removes the blue pilgrim on i6."


def test_removal_is_optional():
    """ "S/he can remove one Pilgrim": pass keeps the board as it is."""
    state = play(position(WORKED_EXAMPLE), "d10", "f10", "h4")
    after = play(state, "pass")
    assert after.board == state.board and after.hand == state.hand
    assert GAME.describe(state, RED, "pass") == "Red removes no pilgrim."
    assert GAME.view(after, None)["colour_to_act"] == "green"


def test_only_a_pilgrim_next_to_two_of_one_colour_may_be_removed():
    """ "That Pilgrim must be next to two Pilgrims (or more) in the same color.\""""
    state = play(position(WORKED_EXAMPLE), "d10", "f10", "h4")
    # Blue i6 touches two greens; yellow e9 now touches red d10 and red f10.
    assert GAME.legal_moves(state, RED) == ["pass", "xe9", "xi6"]
    assert refused(state, "xg4") == why.NOT_REMOVABLE
    assert refused(state, "xd2") == why.NOTHING_THERE.format(square="d2")
    assert refused(state, "d2") == why.DONE_PLACING
    assert refused(state, "xf6") == why.KAABA_SQUARE, 'the Kaaba, not "no pilgrim there"'


def test_a_pilgrim_of_any_colour_may_be_removed_even_ones_own():
    """ "Remove one Pilgrim in whichever color s/he chooses.\""""
    picture = """
        .....Y.....
        ...........
        ...........
        ...........
        R..........
        ...........
        G.........B
        ...........
        ...B.B.....
        ....R......
        ...........
    """
    state = position(picture, colour=RED, placed=3, step=REMOVE)
    assert GAME.legal_moves(state, RED) == ["pass", "xe10"]
    after = play(state, "xe10")
    assert after.board[sq("e10")] == EMPTY and after.hand[RED] == state.hand[RED] + 1
    # Both blue pilgrims lost their only neighbour: they go back as well.
    assert {s for s, _c in after.last_removal.returned} == {sq("d9"), sq("f9")}


def test_entrance_pilgrims_can_never_be_removed_nor_go_back_when_alone():
    """ "Pilgrims in the entrance squares (by the doors) can never be removed": green's a7
    touches two yellows, and blue's k7 is left alone when the yellow on j7 goes."""
    picture = _rows(
        {"f1": "Y", "a5": "R", "a7": "G", "k7": "B", "b6": "Y", "b8": "Y", "j7": "Y", "i6": "R", "i8": "R"},
        keep=("f1", "a5", "a7", "k7"),
        colours=4,
    )
    state = position(picture, colour=BLUE, placed=3, step=REMOVE)
    assert "xa7" not in GAME.legal_moves(state, BLUE)
    assert refused(state, "xa7") == why.ENTRANCE_PILGRIM
    after = play(state, "xj7")
    assert after.board[sq("k7")] == BLUE, "alone, but on its entrance"
    assert after.board[sq("i6")] == after.board[sq("i8")] == EMPTY
    assert after.last_removal.returned == ((sq("i6"), RED), (sq("i8"), RED))


def test_the_removals_of_the_last_round_are_kept_until_their_colour_acts_again():
    """[code] A player coming back sees every removal since the colours' own last turns, not
    only the latest: each colour's removal stays until that colour acts (or passes) again."""
    rng = random.Random(11)
    seen_two = False
    for seed in range(30):
        state = GAME.initial_state(4, {}, seed)
        while not GAME.is_over(state):
            seat = seat_of(state)
            state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
            by = [removal.by for removal in state.recent_removals]
            assert len(by) == len(set(by)), "one per colour: an older one is a round old"
            if state.step == PLACE and state.placed == 0:
                assert state.colour not in by, "the colour to act has seen its own"
            if state.last_removal is not None:
                assert state.recent_removals[-1] == state.last_removal
            seen_two = seen_two or len(by) > 1
            assert GAME.load(json.loads(json.dumps(GAME.dump(state)))) == state
    assert seen_two, "some round had two removals"


def test_a_position_stored_before_recent_removals_loads_with_its_last_removal():
    state = play(position(WORKED_EXAMPLE), "d10", "f10", "h4", "xi6")
    stored = GAME.dump(state)
    del stored["recent_removals"]
    assert GAME.load(stored).recent_removals == (state.last_removal,)


def test_a_removal_step_with_nothing_removable_is_skipped():
    """The engine never asks a player to choose from nothing: after three placements with no
    pilgrim next to two of one colour, the turn just ends."""
    picture = """
        .....Y.....
        ...........
        .......B...
        ......Y....
        R......G...
        ...........
        G.........B
        .....G.....
        ....Y.B....
        ...........
        ...........
    """
    state = play(position(picture), "b8", "f10", "h4")
    assert state.step == PLACE and GAME.view(state, None)["colour_to_act"] == "green"


@pytest.mark.parametrize(("players", "earned"), [(4, True), (3, False), (6, False)])
def test_three_placements_earn_a_removal_only_with_four_colours(players, earned):
    """ "At least 3 pilgrims (in games for 2 or 4 players) or 4 pilgrims (in games for 3, 5 or
    6 players)." Red has placed two pilgrims and puts its third on f3."""
    entrances = {4: ("f1", "a5", "a7", "f11"), 3: ("f1", "a5", "a7", "f11", "k7", "k5")}
    picture = _rows(
        {
            "f1": "Y",
            "a5": "R",
            "a7": "G",
            "f11": "B",
            "k7": "K",
            "k5": "W",
            "e2": "Y",
            "g2": "G",
            "e4": "B",  # f3 touches yellow, green and blue
            "i8": "G",
            "h7": "Y",
            "h9": "Y",  # green touches two yellows: removable
            "c9": "R",
            "e10": "R",  # red's two pilgrims already placed this turn
        },
        keep=entrances.get(players, entrances[3]),
        colours=COLOURS_IN_PLAY[players],
    )
    state = position(picture, players=players, placed=2)
    assert "f3" in GAME.legal_moves(state, seat_of(state))
    after = play(state, "f3")
    assert (after.step == REMOVE) is earned
    if not earned:
        assert GAME.view(after, None)["colour_to_act"] != "red"


def test_four_placements_earn_a_removal_with_six_colours():
    picture = _rows(
        {
            "f1": "Y",
            "a5": "R",
            "a7": "G",
            "f11": "B",
            "k7": "K",
            "k5": "W",
            "e2": "Y",
            "g2": "G",
            "e4": "B",
            "g4": "K",  # f3 touches four colours
            "i8": "G",
            "h7": "Y",
            "h9": "Y",
            "c9": "R",
            "e10": "R",
            "b3": "R",
        },
        keep=("f1", "a5", "a7", "f11", "k7", "k5"),
        colours=6,
    )
    state = position(picture, players=6, placed=3)
    assert GAME.legal_moves(state, RED) == ["f3"]
    after = play(state, "f3")
    assert after.step == REMOVE and after.placed == 4
