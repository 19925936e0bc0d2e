"""Mecca's notation, messages, view and storage: bad notation refused in words, moves that
forgive case and white space, the view's keys (never the seed), stored positions that load back
or are refused, and the log's lines."""

from __future__ import annotations

import json

import pytest

from games.engine import IllegalMove
from games.engine.base import NOT_YOUR_TURN
from games.rules.mecca import GAME
from games.rules.mecca.notation import NAME_A_MOVE, NO_SUCH_SQUARE
from tests.rules.mecca_positions import COUNTER_EXAMPLE, RED, WORKED_EXAMPLE, YELLOW, play, position, refused

# --- Notation, messages, view and storage -------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("hello", NAME_A_MOVE),
        ("x", NAME_A_MOVE),
        ("3f", NAME_A_MOVE),
        ("z3", NO_SUCH_SQUARE.format(name="z3")),
        ("f12", NO_SUCH_SQUARE.format(name="f12")),
        ("f0", NO_SUCH_SQUARE.format(name="f0")),
        ("a²", NO_SUCH_SQUARE.format(name="a²")),  # a digit to str.isdigit, not to int: no Python error shown
        ("e①", NO_SUCH_SQUARE.format(name="e①")),
        ("a٥", NO_SUCH_SQUARE.format(name="a٥")),  # an Arabic-Indic 5 is no row of ours, not a5
    ],
)
def test_notation_errors_say_what_is_wrong(move, message):
    assert refused(position(WORKED_EXAMPLE), move) == message


def test_moves_forgive_case_and_white_space_and_other_seats_wait():
    state = position(WORKED_EXAMPLE)
    assert play(state, "  D10 ") == play(state, "d10")
    with pytest.raises(IllegalMove, match=NOT_YOUR_TURN):
        GAME.apply(state, YELLOW, "d10")
    assert GAME.legal_moves(state, YELLOW) == []


def test_view_has_the_spec_keys_and_what_the_board_needs():
    state = play(position(WORKED_EXAMPLE), "d10")
    view = GAME.view(state, RED)
    assert view["board"]["d10"] == "red" and view["board"]["f1"] == "yellow"
    assert view["in_hand"] == {"yellow": 15, "red": 16, "green": 14, "blue": 14}
    assert view["colours"] == [["yellow"], ["red"], ["green"], ["blue"]]
    assert view["to_act"] == [RED] and view["colour_to_act"] == "red"
    assert view["step"] == "place" and view["placement"] == 2 and view["placed_this_turn"] == 1
    assert view["legal_moves"] == GAME.legal_moves(state, RED) == view["targets"]
    assert GAME.view(state, YELLOW)["legal_moves"] == [] and GAME.view(state, YELLOW)["targets"] == view["targets"]
    assert view["unused_entrances"] == ["f11", "k5"]
    assert view["entrances"] == {"yellow": "f1", "red": "a5", "green": "a7", "blue": "k7"}
    assert view["over"] is False and view["scores"] == [] and view["winners"] == []
    json.dumps(view)


def test_view_never_shows_the_seed():
    state = GAME.initial_state(4, {}, seed=987_654_321_987)
    for viewer in (None, 0, 1, 2, 3):
        assert "987654321987" not in json.dumps(GAME.view(state, viewer))


def test_dump_and_load_round_trip_mid_game():
    state = play(position(COUNTER_EXAMPLE), "d10", "f10", "h4", "xi6")
    data = GAME.dump(state)
    assert GAME.load(json.loads(json.dumps(data))) == state
    assert GAME.dump(GAME.load(data)) == data


@pytest.mark.parametrize("data", [{}, {"players": 4}, {"x": 1}])
def test_load_refuses_something_that_is_not_a_mecca_position(data):
    with pytest.raises(ValueError, match="not a stored Mecca position"):
        GAME.load(data)


def test_load_refuses_a_bad_square_name():
    data = GAME.dump(position(WORKED_EXAMPLE))
    data["board"]["z99"] = "red"
    with pytest.raises(ValueError, match="not a stored Mecca position"):
        GAME.load(data)


def test_describe_the_set_up_and_a_crescent():
    state = GAME.initial_state(4, {}, seed=1)
    assert GAME.describe(state, 0, "a7") == "Yellow enters at a7 (entrance 3)."
    line = GAME.describe(position(WORKED_EXAMPLE), RED, "i3")
    assert line.startswith("Red places a pilgrim on i3 (1st of the turn), on its own crescent")


def test_describe_refuses_an_illegal_move():
    with pytest.raises(IllegalMove):
        GAME.describe(position(WORKED_EXAMPLE), RED, "d2")
