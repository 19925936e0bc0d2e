"""Mesopotamia: the set-up, movement points, moving (never into a volcano) and discovering tiles
(a drawn volcano placed by the mover, at most three a turn), the wood and stone a new forest or
quarry brings, and the notation of moves. Rules from docs/rules/mesopotamia.md (the rule summary
and the decisions table)."""

from __future__ import annotations

import pytest

from games.engine import IllegalMove
from games.rules.mesopotamia import GAME
from games.rules.mesopotamia.state import OFFERINGS, Player, Tile
from tests.rules.mesopotamia_positions import (
    FOREST,
    QUARRY,
    TEMPLE,
    A,
    B,
    arrange,
    legal,
    play,
    start,
    tile_at,
    tribe,
    turn,
)

# --- setup ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "stack", "removed"), [(2, 28, 6), (3, 30, 4), (4, 34, 0)])
def test_setup_removes_plains_by_player_count_and_keeps_41_tiles(players, stack, removed):
    state = start(players)
    assert len(state.stack) == stack and state.removed_tiles == removed
    assert state.stack.count("plains") == 20 - removed
    assert GAME.conserved(state)["tiles"] == 41
    assert len(state.tiles) == 7


@pytest.mark.parametrize(
    ("players", "camp_a", "camp_b"),
    [(2, [0, -1], [1, -1]), (3, [0, 2], [1, -1]), (4, [0, 3], [1, 2])],
)
def test_setup_camps_huts_tribes_and_starting_resources(players, camp_a, camp_b):
    state = start(players)
    assert [h.owner for h in tile_at(state, A).huts] == camp_a
    assert [h.owner for h in tile_at(state, B).huts] == camp_b
    assert all(h.offering == 0 for t in state.tiles for h in t.huts)
    assert tile_at(state, FOREST).wood == players and tile_at(state, QUARRY).stone == players
    for seat in range(players):
        camp = A if seat in camp_a else B
        assert [t.pos for t in state.tribes[seat * 8 : seat * 8 + 8]] == [camp] * 3 + [None] * 5
        assert state.players[seat] == Player(0, 3, OFFERINGS, (), ())


def test_setup_the_stack_order_comes_from_the_seed():
    assert start(seed=1).stack == start(seed=1).stack
    assert start(seed=1).stack != start(seed=2).stack


# --- movement points ----------------------------------------------------------------------


@pytest.mark.parametrize(("players", "points"), [(2, [2, 5]), (3, [2, 3, 4]), (4, [2, 3, 4, 5])])
def test_first_turn_movement_points_by_seat_then_five(players, points):
    state = start(players)
    seen = []
    for _ in range(players + 1):
        seen.append(state.turn.mp)
        state = play(state, "end", "end")
    assert seen == [*points, 5]


def test_moving_costs_one_point_per_tile_and_unused_points_are_lost():
    state = turn(start(), mp=2)
    state = play(state, "move b1 se")  # into the temple, empty-handed
    assert tribe(state, "b1").pos == TEMPLE and state.turn.mp == 1
    state = play(state, "move b1 se")
    assert tribe(state, "b1").pos == QUARRY and state.turn.mp == 0
    assert not [m for m in legal(state) if m.startswith(("move", "discover"))]
    assert "carry b1 stone" in legal(state)  # steps that cost nothing remain
    state = play(state, "end")
    assert state.turn.phase == "action"
    state = play(state, "end")
    assert state.turn.seat == 1 and state.turn.mp == 3


def test_tribes_never_enter_a_volcano():
    state = turn(arrange(start(), {"b1": ((1, 0),)}))
    moves = legal(state)
    assert "move b1 sw" not in moves  # 0,1 is a volcano
    assert "move b1 nw" in moves
    with pytest.raises(IllegalMove, match="never enter a volcano"):
        play(state, "move b1 sw")


def test_any_number_of_tribes_share_a_tile():
    state = arrange(start(), {f"b{i}": (A,) for i in range(1, 9)})
    assert sum(t.pos == A for t in state.tribes) == 8 + 3  # green's three as well


# --- discovering ------------------------------------------------------------------------


def test_discovery_draws_the_top_tile_and_places_the_tribe_on_it():
    state = turn(arrange(start(), stack=("plains", "forest")))
    state = play(state, "discover b1 nw")
    assert tile_at(state, (-2, 0)).kind == "plains"
    assert tribe(state, "b1").pos == (-2, 0)
    assert state.stack == ("forest",) and state.turn.mp == 4 and state.turn.discoveries == 1


def test_a_drawn_volcano_goes_where_the_mover_chooses_then_another_tile_is_drawn():
    state = turn(arrange(start(), stack=("volcano", "quarry", "plains")))
    state = play(state, "discover b1 nw")
    assert state.turn.phase == "volcano" and legal(state) == [m for m in legal(state) if m.startswith("volcano")]
    assert "volcano -2,0" not in legal(state)  # not on the hex being discovered
    assert "volcano 5,5" not in legal(state)  # it must touch the map
    state = play(state, "volcano 2,-2")
    assert tile_at(state, (2, -2)).kind == "volcano"
    assert tile_at(state, (-2, 0)).kind == "quarry" and tribe(state, "b1").pos == (-2, 0)
    assert state.turn.discoveries == 1  # the volcano is not counted


def test_at_most_three_discoveries_a_turn_volcanoes_not_counted():
    state = turn(arrange(start(), stack=("plains", "volcano", "plains", "plains", "plains")), mp=8)
    state = play(state, "discover b1 nw", "discover b1 nw", "volcano 2,-2", "discover b1 nw")
    assert state.turn.discoveries == 3
    assert not [m for m in legal(state) if m.startswith("discover")]
    with pytest.raises(IllegalMove, match="at most 3 tiles"):
        play(state, "discover b1 nw")


def test_no_discovery_once_the_stack_is_empty():
    state = turn(arrange(start(), stack=()))
    assert not [m for m in legal(state) if m.startswith("discover")]
    with pytest.raises(IllegalMove, match="stack is empty"):
        play(state, "discover b1 nw")


def test_volcanoes_that_empty_the_stack_leave_the_tribe_and_give_back_the_point():
    state = turn(arrange(start(), stack=("volcano",)))
    before = GAME.conserved(state)
    state = play(state, "discover b1 nw")
    assert GAME.conserved(state) == before  # the drawn volcano is in the mover's hand
    state = play(state, "volcano 2,-2")
    assert tribe(state, "b1").pos == A and state.turn.mp == 5 and state.turn.discoveries == 0
    assert GAME.conserved(state) == before


# --- forests and quarries -------------------------------------------------------------------


def test_a_new_forest_brings_one_wood_per_player_one_on_each_forest_surplus_on_the_new():
    state = turn(arrange(start(4), stack=("forest",)))
    assert GAME.describe(state, 0, "discover b1 nw").endswith(
        f"finds a forest; 4 wood placed (3 on -2,0, 1 on {FOREST[0]},{FOREST[1]})."
    )
    state = play(state, "discover b1 nw")
    assert tile_at(state, (-2, 0)).wood == 3 and tile_at(state, FOREST).wood == 5
    assert state.wood_supply == 20 - 4 - 4


def test_a_new_quarry_brings_one_stone_per_player_the_same_way():
    state = turn(arrange(start(3), stack=("quarry",)))
    state = play(state, "discover b1 nw")
    assert tile_at(state, (-2, 0)).stone == 2 and tile_at(state, QUARRY).stone == 4


def test_when_resources_run_short_the_mover_chooses_but_the_new_tile_gets_one():
    forest2 = Tile(2, -1, "forest", wood=1)
    state = turn(arrange(start(2), tiles=(forest2,), stack=("forest",), wood_supply=10))
    before = GAME.conserved(state)
    assert GAME.describe(state, 0, "discover b1 nw").endswith("finds a forest; 1 wood placed on -2,0; 1 more to place.")
    state = play(state, "discover b1 nw")
    assert tile_at(state, (-2, 0)).wood == 1  # the new tile's one
    assert state.turn.phase == "place"
    assert legal(state) == ["wood -2,0", "wood 1,-1", "wood 2,-1"]
    state = play(state, "wood 2,-1")
    assert tile_at(state, (2, -1)).wood == 2 and tile_at(state, FOREST).wood == 2
    assert state.turn.phase == "move" and state.wood_supply == 8
    assert GAME.conserved(state)["wood"] == before["wood"]


def test_a_short_supply_gives_what_is_left():
    state = turn(arrange(start(4), stack=("quarry",), stone_supply=1))
    assert GAME.describe(state, 0, "discover b1 nw").endswith("finds a quarry; 1 stone placed on -2,0.")
    state = play(state, "discover b1 nw")
    assert tile_at(state, (-2, 0)).stone == 1 and state.stone_supply == 0 and state.turn.phase == "move"
    empty = turn(arrange(start(4), stack=("quarry",), stone_supply=0))
    assert tile_at(play(empty, "discover b1 nw"), (-2, 0)).stone == 0


# --- notation and refusals ------------------------------------------------------------------------


def test_notation_forgives_case_and_spaces_and_refuses_nonsense_readably():
    state = turn(start())
    assert play(state, "  MOVE B1 SE ") == play(state, "move b1 se")
    # The contract forgives surrounding white space and letter case, nothing more.
    with pytest.raises(IllegalMove, match="one space between its words: “move b1 se”"):
        play(state, "move  b1   se")
    for bad in ("fly b1 se", "move x9 ne", "move b1 up", "", "hut"):
        with pytest.raises(IllegalMove, match=r"\w"):
            play(state, bad)
    with pytest.raises(IllegalMove, match="not one of your tribes"):
        play(state, "move y1 se")
    with pytest.raises(IllegalMove, match="end the movement first"):
        play(state, "grow -1,0")
