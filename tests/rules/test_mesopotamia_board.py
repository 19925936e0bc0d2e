"""Mesopotamia's board: every legal move is exactly one button, a discovery's button names the
hex it opens, a target hex makes its move when clicked unless two moves lead there, and every
tribe on a crowded tile is drawn inside its hex, apart from the others."""

from __future__ import annotations

import itertools
import math

import pytest

from games.boards.mesopotamia import present
from games.rules.mesopotamia import GAME, hexes
from tests.rules.mesopotamia_positions import A, arrange, legal, start

# --- the board ------------------------------------------------------------------------------------


def test_the_board_offers_every_legal_move_as_exactly_one_button():
    state = start(4, seed=8, start_card="yes")
    for _ in range(250):
        seat = state.turn.seat
        moves = legal(state)
        board = present(GAME.view(state, seat), seat, moves)
        buttons = [m["move"] for group in board["groups"] for m in group["moves"]]
        buttons += ["end"] if board["can_end"] else []
        assert sorted(buttons) == moves
        assert present(GAME.view(state, None), None, [])["groups"] == []
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 3))


def test_a_discovery_button_names_the_hex_it_opens_as_the_dashed_hex_on_the_map_does():
    state = start(4, seed=8, start_card="yes")
    labelled = 0
    for _ in range(250):
        seat = state.turn.seat
        moves = legal(state)
        board = present(GAME.view(state, seat), seat, moves)
        buttons = {m["move"]: m["label"] for group in board["groups"] for m in group["moves"]}
        tribes = {tribe["id"]: tribe for tribe in GAME.view(state, seat)["tribes"]}
        for move in (m for m in moves if m.startswith("discover ")):
            _verb, tribe, direction = move.split()
            q, r = hexes.step((tribes[tribe]["q"], tribes[tribe]["r"]), direction)
            assert buttons[move].endswith(f" at {q},{r}"), buttons[move]
            labelled += 1
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 3))
    assert labelled


def test_a_target_hex_makes_its_move_when_clicked_unless_two_moves_lead_there():
    state = start(4, seed=8, start_card="yes")
    clicked_kinds = set()
    ambiguous_seen = 0
    for _ in range(250):
        seat = state.turn.seat
        moves = legal(state)
        board = present(GAME.view(state, seat), seat, moves)["map"]
        targets = [h for h in board["hexes"] + board["ghosts"] if h["choice"]]
        on_map = [h["move"] for h in targets if h["move"]]
        ambiguous = [h for h in targets if not h["move"]]
        choices = [m for m in moves if m.split()[0] in ("discover", "volcano", "wood", "stone", "to")]
        assert len(on_map) == len(set(on_map)) and set(on_map) <= set(choices)
        assert all(h["ask"] and len(h["options"]) >= 2 for h in ambiguous), "a click there opens a short chooser"
        asked = [option["move"] for h in ambiguous for option in h["options"]]
        # Of alike tribes (one seat's, on one tile, carrying the same) the map offers the first alone.
        assert set(on_map + asked) <= set(choices)
        assert {m for m in choices if not m.startswith("discover ")} <= set(on_map + asked)
        assert all(not h["choice"] for h in board["hexes"] if "move" not in h)
        clicked_kinds |= {move.split()[0] for move in on_map}
        ambiguous_seen += bool(ambiguous)
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 3))
    assert {"discover", "stone", "to"} <= clicked_kinds
    assert ambiguous_seen, "two tribes could discover the same hex at some point"


TRIBE_RADIUS = 8  # the circle the board template draws for a tribe, before its scale
HUTS_BOTTOM, COORDS_TOP = -7, 30  # huts and holy places stand above, the hex's coordinates are written below
APOTHEM = 47 * math.sqrt(3) / 2  # the drawn outline's radius is 47
OVER_THE_EDGE = 2  # what a circle may overlap the hex's outline (1.5 wide) by


@pytest.mark.parametrize("count", [3, 8, 9, 10, 18, 19, 32])
def test_every_tribe_on_a_crowded_tile_is_drawn_inside_its_hex_apart_from_the_others(count):
    """Any number of tribes may share a tile: ten on a starting plains two rounds into a
    4-player game. A third row was drawn below the hex, under the next hex."""
    names = [f"{colour}{n}" for colour in "bygr" for n in range(1, 9)][:count]
    state = arrange(start(4), {name: (A,) for name in names}, clear=True)
    tile = next(h for h in present(GAME.view(state, 0), 0, [])["map"]["hexes"] if h["coords"] == "-1,0")
    tokens = tile["tribes"]
    assert [t["id"] for t in tokens] == names
    for t in tokens:
        radius = TRIBE_RADIUS * t["scale"]
        assert t["y"] - radius >= HUTS_BOTTOM and t["y"] + radius <= COORDS_TOP, t
        to_slanted_side = APOTHEM - (math.sqrt(3) / 2 * abs(t["x"]) + abs(t["y"]) / 2)
        assert to_slanted_side >= radius - OVER_THE_EDGE, t
    for one, other in itertools.combinations(tokens, 2):
        apart = math.dist((one["x"], one["y"]), (other["x"], other["y"]))
        assert apart >= TRIBE_RADIUS * (one["scale"] + other["scale"]), (one, other)
