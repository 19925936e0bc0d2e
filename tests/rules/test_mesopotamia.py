"""Mesopotamia scenarios, rule by rule from the rule summary (as summarised in
docs/rules/mesopotamia.md) and our decisions (the decisions table of
docs/rules/mesopotamia.md), the secrecy guarantees, the AI's knowledge, and property tests
over random games."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from dataclasses import replace

import pytest
from django.template.loader import render_to_string
from hypothesis import given, settings
from hypothesis import strategies as st

from games.boards.mesopotamia import present
from games.engine import IllegalMove
from games.rules.mesopotamia import GAME, hexes, refusals, rules
from games.rules.mesopotamia.state import (
    CARDS,
    MAX_ROUNDS,
    OFFERINGS,
    STALL_ROUNDS,
    Hut,
    Player,
    State,
    Tile,
    Tribe,
    Turn,
    card_id,
    offering_id,
)

A, B = (-1, 0), (-1, 1)
TEMPLE, FOREST, QUARRY = (0, 0), (1, -1), (1, 0)


# --- building positions -------------------------------------------------------------------


def start(players: int = 3, seed: int = 7, **options: str) -> State:
    return GAME.initial_state(players, options, seed)


def tribe_index(name: str) -> int:
    return rules.parse_tribe(name)


def arrange(
    state: State,
    tribes: dict[str, tuple] | None = None,
    tiles: tuple[Tile, ...] = (),
    clear: bool = False,
    **fields,
) -> State:
    """``state`` with tribes placed (``{"b1": ((q, r), load, offering)}``), tiles put on the
    map (replacing one on the same hex), and other fields replaced."""
    all_tribes = [Tribe(None) for _ in state.tribes] if clear else list(state.tribes)
    for name, spec in (tribes or {}).items():
        all_tribes[tribe_index(name)] = Tribe(*spec)
    by_pos = {t.pos: t for t in state.tiles}
    for tile in tiles:
        by_pos[tile.pos] = tile
    return replace(state, tribes=tuple(all_tribes), tiles=tuple(by_pos.values()), **fields)


def turn(state: State, seat: int = 0, phase: str = "move", mp: int = 5, **fields) -> State:
    return replace(state, turn=Turn(seat=seat, phase=phase, mp=mp, **fields))


def player(state: State, seat: int, **fields) -> State:
    players = list(state.players)
    players[seat] = players[seat]._replace(**fields)
    return replace(state, players=tuple(players))


def play(state: State, *moves: str) -> State:
    for move in moves:
        state = GAME.apply(state, state.turn.seat, move)
    return state


def legal(state: State) -> list[str]:
    return GAME.legal_moves(state, state.turn.seat)


def tile_at(state: State, pos) -> Tile:
    return state.tile_map()[pos]


def tribe(state: State, name: str) -> Tribe:
    return state.tribes[tribe_index(name)]


def plains(q: int, r: int, **fields) -> Tile:
    return Tile(q, r, "plains", **fields)


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


# --- carrying ---------------------------------------------------------------------------------


def test_a_tribe_carries_one_resource_and_may_swap_it():
    state = turn(arrange(start(), {"b1": (FOREST,)}, tiles=(Tile(1, -1, "forest", wood=1, stone=1),)))
    state = play(state, "carry b1 wood")
    assert tribe(state, "b1").load == "wood" and tile_at(state, FOREST).wood == 0
    assert "carry b1 wood" not in legal(state)  # one at a time
    state = play(state, "carry b1 stone")
    assert tribe(state, "b1").load == "stone" and tile_at(state, FOREST).wood == 1


def test_a_dropped_resource_stays_on_the_tile_for_later():
    state = turn(arrange(start(), {"b1": (A, "wood")}))
    state = play(state, "drop b1")
    assert tribe(state, "b1").load == "" and tile_at(state, A).wood == 1
    assert "carry b2 wood" in legal(state)


def test_a_carried_offering_cannot_be_dropped_swapped_or_stolen():
    state = arrange(
        start(),
        {"b1": (A, "offering", 4), "y1": (A,), "y2": (A,), "y3": (A,), "y4": (A,)},
        tiles=(plains(-1, 0, wood=1, huts=(Hut(0),)),),
    )
    blue = turn(state, 0)
    assert not [m for m in legal(blue) if m.split()[1:2] == ["b1"] and m.split()[0] in ("drop", "carry")]
    with pytest.raises(IllegalMove, match="only be put down by delivering"):
        play(blue, "drop b1")
    yellow = turn(state, 1)
    assert not [m for m in legal(yellow) if m.startswith("steal")]


def test_the_swap_for_an_offering_puts_the_resource_down():
    state = turn(arrange(start(), {"b1": (A, "stone")}, tiles=(plains(-1, 0, huts=(Hut(0, 6), Hut(2))),)))
    state = play(state, "carry b1 offering 6")
    assert tribe(state, "b1") == Tribe(A, "offering", 6)
    assert tile_at(state, A).stone == 1 and tile_at(state, A).huts == (Hut(0), Hut(2))


def test_the_log_says_the_resource_a_tribe_puts_down_to_take_up_an_offering():
    """The stone appeared on the tile with no word of it in the log."""
    state = turn(arrange(start(), {"b1": (A, "stone")}, tiles=(plains(-1, 0, huts=(Hut(0, 6), Hut(2))),)))
    line = GAME.describe(state, 0, "carry b1 offering 6")
    assert line == "Blue's b1 takes up a face-down offering on -1,0 (putting down its stone)."


def test_only_the_owner_picks_up_an_offering_marker():
    state = turn(arrange(start(), {"g1": (A,)}, tiles=(plains(-1, 0, huts=(Hut(0, 6), Hut(2))),)), seat=2)
    assert not [m for m in legal(state) if "offering" in m]


# --- stealing ---------------------------------------------------------------------------------


def test_stealing_needs_more_tribes_than_the_victims_owner():
    state = turn(arrange(start(), {"y1": (A, "stone")}))  # blue 3, yellow 1, green 3 on A
    assert "steal b1 y1" in legal(state)
    state = play(state, "steal b1 y1")
    assert tribe(state, "b1").load == "stone" and tribe(state, "y1").load == ""
    even = turn(arrange(start(), {"g1": (A, "wood")}))  # blue 3 against green 3
    assert not [m for m in legal(even) if m.startswith("steal")]
    with pytest.raises(IllegalMove, match="more tribes"):
        play(even, "steal b1 g1")


def test_each_tribe_steals_only_once_a_turn():
    state = turn(arrange(start(), {"y1": (A, "stone"), "y2": (A, "wood")}))
    state = play(state, "steal b1 y1", "drop b1")
    assert "steal b1 y2" not in legal(state) and "steal b2 y2" in legal(state)
    with pytest.raises(IllegalMove, match="once a turn"):
        play(state, "steal b1 y2")


def test_only_an_empty_handed_tribe_steals():
    state = turn(arrange(start(), {"y1": (A, "stone"), "b1": (A, "wood")}))
    assert "steal b1 y1" not in legal(state) and "steal b2 y1" in legal(state)


# --- the temple ---------------------------------------------------------------------------------


def test_a_stone_into_the_temple_builds_it_maximum_and_mana_rise():
    state = play(turn(start()), "move b1 se", "move b1 se", "carry b1 stone", "move b1 nw")
    assert tribe(state, "b1") == Tribe(TEMPLE)
    assert state.players[0].max_mana == 4 and state.players[0].mana == 1 and state.stones_used == 1
    assert GAME.conserved(state)["stone"] == 20
    before = play(turn(start()), "move b1 se", "move b1 se", "carry b1 stone")
    assert "delivers a stone to the temple: mana 1 of 4" in GAME.describe(before, 0, "move b1 nw"), "the rules' words"


def test_the_maximum_stops_at_eight_and_mana_never_passes_it():
    full = player(turn(arrange(start(), {"b1": (QUARRY, "stone")})), 0, mana=7, max_mana=8)
    after = play(full, "move b1 nw")
    assert after.players[0].max_mana == 8 and after.players[0].mana == 8
    topped = player(full, 0, mana=8)
    assert play(topped, "move b1 nw").players[0].mana == 8


def test_no_wood_is_carried_into_or_through_the_temple():
    state = turn(arrange(start(), {"b1": (A, "wood")}))
    assert "move b1 se" not in legal(state)
    with pytest.raises(IllegalMove, match="No wood"):
        play(state, "move b1 se")


def test_an_empty_handed_tribe_walks_through_the_temple():
    state = play(turn(start()), "move b1 se", "move b1 se")
    assert tribe(state, "b1").pos == QUARRY


# --- offerings ---------------------------------------------------------------------------------


def test_an_offering_delivered_is_paid_in_mana_and_the_tribe_goes_home():
    state = player(turn(arrange(start(), {"b1": (A, "offering", 4)})), 0, mana=5, hand=(2, 6, 7))
    state = play(state, "move b1 se")
    assert state.players[0].delivered == (4,) and state.players[0].mana == 1
    assert tribe(state, "b1") == Tribe(None)
    assert state.last_offering_turn == state.turn_number


def test_an_offering_is_refused_without_enough_mana():
    state = player(turn(arrange(start(), {"b1": (A, "offering", 6)})), 0, mana=5, hand=(2, 4, 7))
    assert "move b1 se" not in legal(state)
    with pytest.raises(IllegalMove, match="need 6 mana"):
        play(state, "move b1 se")
    assert GAME.explain_illegal(state, 0, "move b1 se") == refusals.MANA_SHORT.format(value=6, mana=5)


def test_an_offering_may_be_carried_over_several_turns_before_it_is_delivered():
    """The text: you "do not have to pick up, carry, and deliver the offering on one turn"."""
    state = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0, 4), Hut(2))),)))
    state = player(state, 0, mana=4, max_mana=4, hand=(2, 6, 7))
    state = play(state, "carry b1 offering 4")
    while state.turn.seat == 0:  # blue ends the turn without delivering
        state = play(state, "end")
    assert tribe(state, "b1") == Tribe(A, "offering", 4)
    while state.turn.seat != 0:
        state = play(state, "end")
    assert tribe(state, "b1") == Tribe(A, "offering", 4), "still carried on blue's next turn"
    state = play(state, "move b1 se")
    assert state.players[0].delivered == (4,) and tribe(state, "b1") == Tribe(None)


def test_the_fourth_offering_ends_the_game_at_once():
    state = player(turn(arrange(start(), {"b1": (A, "offering", 7)})), 0, mana=7, hand=(), delivered=(2, 4, 6))
    state = play(state, "move b1 se")
    assert GAME.is_over(state) and state.end_reason == "offerings"
    assert GAME.to_act(state) == () and GAME.outcome(state).winners == (0,)
    assert GAME.outcome(state).scores == (19, 0, 0)


# --- actions: huts, holy places, growth, cards -------------------------------------------------------

SITE = (-2, 0)


def site_state(*loads: str, seat: int = 0, **tile_fields) -> State:
    """Seat ``seat`` in its action phase with tribes carrying ``loads`` on plains -2,0."""
    letter = "byg"[seat]
    tribes = {f"{letter}{i + 4}": (SITE, load) for i, load in enumerate(loads)}
    return turn(arrange(start(), tribes, tiles=(plains(*SITE, **tile_fields),)), seat, phase="action")


def test_a_hut_needs_two_tribes_and_a_wood_there_and_takes_a_hidden_offering():
    state = site_state("wood", "", wood=1)
    assert {f"hut -2,0 {v}" for v in OFFERINGS} <= set(legal(state))
    state = play(state, "hut -2,0 6")
    assert tile_at(state, SITE).huts == (Hut(0, 6),)
    assert state.players[0].hand == (2, 4, 7)
    assert tribe(state, "b4").load == "" and tile_at(state, SITE).wood == 1  # the carried wood is used
    assert state.wood_supply == 20 - 3 + 1
    assert not [m for m in legal(site_state("", "")) if m.startswith("hut")]
    assert not [m for m in legal(site_state("wood")) if m.startswith("hut")]
    with pytest.raises(IllegalMove, match="need a wood carried by one of your tribes there"):
        play(site_state("", ""), "hut -2,0 2")


def test_a_wood_lying_on_the_tile_must_be_carried_first():
    """Spec: "1 wood carried by one of them"."""
    lying = site_state("", "", wood=1)
    assert not [m for m in legal(lying) if m.startswith("hut")]
    with pytest.raises(IllegalMove, match="must be picked up first"):
        play(lying, "hut -2,0 2")


def test_a_hut_is_not_built_on_a_full_tile_or_a_holy_place():
    assert not [m for m in legal(site_state("wood", "", huts=(Hut(1), Hut(2)))) if m.startswith("hut")]
    assert not [m for m in legal(site_state("wood", "", holy=1)) if m.startswith("hut")]


def test_building_huts_may_be_repeated_up_to_two_a_tile():
    state = play(site_state("wood", "wood"), "hut -2,0 2")
    assert "hut -2,0 4" in legal(state) and "holy -2,0" not in legal(state)
    state = play(state, "hut -2,0 4")
    assert [h.offering for h in tile_at(state, SITE).huts] == [2, 4]


def test_a_holy_place_needs_an_empty_plains_two_tribes_and_a_stone_there():
    state = play(site_state("stone", ""), "holy -2,0")
    assert tile_at(state, SITE).holy == 0 and state.stone_supply == 20 - 3 + 1
    assert tile_at(state, SITE).huts == () and tribe(state, "b4").load == ""
    assert state.players[0].hand == OFFERINGS, "[spec] no offering marker goes under a holy place"
    lying = play(site_state("", "", stone=1), "holy -2,0")
    assert tile_at(lying, SITE).holy == 0 and tile_at(lying, SITE).stone == 0
    assert "holy -2,0" not in legal(site_state("", ""))


def test_a_holy_place_is_refused_with_a_hut_or_another_players_tribe_there():
    assert "holy -2,0" not in legal(site_state("stone", "", huts=(Hut(1),)))
    crowded = arrange(site_state("stone", ""), {"y1": (SITE,)})
    assert "holy -2,0" not in legal(crowded)
    with pytest.raises(IllegalMove, match="without huts, holy places or other players"):
        play(crowded, "holy -2,0")


def test_growth_adds_one_tribe_once_per_hut_and_turn():
    one_hut = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0),)),)), phase="action")
    state = play(one_hut, "grow -1,0")
    assert tribe(state, "b4").pos == A and tribe(state, "b5").pos is None
    assert state.turn.seat == 1  # the hut has been used: nothing more to do, the turn passed
    two_huts = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0), Hut(0))),)), phase="action")
    state = play(two_huts, "grow -1,0")
    assert "grow -1,0" in legal(state)
    state = play(state, "grow -1,0")
    assert tribe(state, "b5").pos == A and state.turn.seat == 1


def test_growth_needs_one_of_the_players_own_huts_and_two_own_tribes():
    """Spec: "on a tile with one of your huts" (the text: "if you have 2 tribes and a hut there")."""
    shared = turn(start(), phase="action")  # blue's and green's huts on A: only blue's counts for blue
    state = play(shared, "grow -1,0")
    assert state.turn.seat == 1, "green's hut gives blue no second growth: nothing left to do, the turn passed"
    neutral = turn(arrange(start(), {"y4": (B,)}, tiles=(plains(-1, 1, huts=(Hut(-1),)),)), seat=1, phase="action")
    assert "grow -1,1" not in legal(neutral)
    with pytest.raises(IllegalMove, match="one of your own huts"):
        play(neutral, "grow -1,1")
    rivals = turn(arrange(start(), {"b4": (B,), "b5": (B,)}), phase="action")  # yellow's and a neutral hut
    assert "grow -1,1" not in legal(rivals)
    alone = turn(arrange(start(), {"b4": ((-2, 0),)}, tiles=(plains(-2, 0, huts=(Hut(0),)),)), phase="action")
    assert "grow -2,0" not in legal(alone)
    with pytest.raises(IllegalMove, match="two of your tribes"):
        play(alone, "grow -2,0")


def test_growth_is_blocked_by_a_marker_lying_there_but_not_by_a_carried_one():
    lying = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0), Hut(2, 4))),)), phase="action")
    assert "grow -1,0" not in legal(lying)
    with pytest.raises(IllegalMove, match="offering marker lying"):
        play(lying, "grow -1,0")
    carried = turn(arrange(start(), {"b1": (A, "offering", 4)}), phase="action")
    assert "grow -1,0" in legal(carried)


def test_one_kind_of_action_a_turn_repeated_while_possible():
    grew = play(turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0), Hut(0))),)), phase="action"), "grow -1,0")
    assert "draw" not in legal(grew) and "grow -1,0" in legal(grew)
    built = play(site_state("wood", "stone", "wood"), "hut -2,0 2")
    assert "holy -2,0" not in legal(built) and "draw" not in legal(built)
    assert [m for m in legal(built) if m.startswith("hut")] == ["hut -2,0 4", "hut -2,0 6", "hut -2,0 7"]
    with pytest.raises(IllegalMove, match="only that one may be repeated"):
        play(built, "holy -2,0")


def test_drawing_a_card_is_the_whole_action_once_a_turn():
    state = turn(arrange(start(), {"b4": (A, "wood")}, tiles=(plains(-1, 0, huts=(Hut(0),)),)), phase="action")
    assert "grow -1,0" in legal(state) and "draw" in legal(state)
    state = play(state, "draw")
    assert len(state.players[0].cards) == 1 and state.turn.seat == 1  # nothing else to do: the turn passed


def test_a_card_drawn_this_turn_waits_for_the_next_turn():
    endurance = CARDS.index("endurance")
    state = turn(arrange(start(), deck=(endurance, 1)), phase="action")
    state = play(state, "draw")
    assert state.players[0].cards == (endurance,) and state.turn.seat == 1
    assert rules.playable_cards(state, 0) == {"endurance": endurance}  # from the next turn on
    fresh = turn(player(start(), 0, cards=(endurance,)), phase="move", fresh=(endurance,))
    assert "play endurance" not in legal(fresh)
    with pytest.raises(IllegalMove, match="drawn this turn wait"):
        play(fresh, "play endurance")


def test_an_empty_deck_is_refilled_from_the_shuffled_discard_pile():
    state = turn(arrange(start(), deck=(), discard=(1, 2, 3)), phase="action")
    state = play(state, "draw")
    assert len(state.players[0].cards) == 1 and len(state.deck) == 2 and state.discard == ()
    assert set(state.deck) | set(state.players[0].cards) == {1, 2, 3}
    # Said in the order it happens (it read "draws a card; the discard pile is shuffled ...").
    before = turn(arrange(start(), deck=(), discard=(1, 2, 3)), phase="action")
    assert GAME.describe(before, 0, "draw").endswith("shuffles the discard pile into a new deck and draws a card.")


# --- mana ---------------------------------------------------------------------------------------


def test_mana_from_own_holy_place_with_one_tribe_and_anothers_with_two():
    state = arrange(
        start(),
        {"b4": ((-2, 0),), "b5": ((-2, 1),), "b6": ((-2, 1),), "b7": ((-3, 1),)},
        tiles=(plains(-2, 0, holy=0), plains(-2, 1, holy=1), plains(-3, 1, holy=2)),
    )
    state = player(turn(state, phase="action"), 0, max_mana=8)
    assert rules.mana_gain(state, 0) == 2  # own with one tribe, yellow's with two; not green's with one
    state = play(state, "end")
    assert state.players[0].mana == 2


def test_mana_never_passes_the_maximum():
    state = arrange(start(), {"b4": ((-2, 0),)}, tiles=(plains(-2, 0, holy=0),))
    state = play(player(turn(state, phase="action"), 0, mana=3), "end")
    assert state.players[0].mana == 3


# --- each card -----------------------------------------------------------------------------------


def with_card(name: str, state: State | None = None, seat: int = 0, phase: str = "move") -> State:
    state = state or start()
    card = CARDS.index(name)
    deck = tuple(c for c in state.deck if c != card)
    return turn(player(replace(state, deck=deck), seat, cards=(card,)), seat, phase=phase)


@pytest.mark.parametrize(
    ("card", "move", "line"),
    [
        ("endurance", "play endurance", "Blue plays Endurance for 3 more movement points."),
        ("fertility", "play fertility", "Blue plays Fertility: the next population growth brings two tribes."),
        ("mana-theft", "play mana-theft y", "Blue plays Mana Theft and takes 1 mana from Yellow."),
        ("teleport", "play teleport b1", "Blue plays Teleport on b1 at -1,0."),
    ],
)
def test_a_card_and_its_effect_make_one_sentence_in_the_log(card, move, line):
    state = player(with_card(card), 1, mana=2)
    assert GAME.describe(state, 0, move) == line


def test_card_endurance_gives_three_more_movement_points():
    state = play(with_card("endurance"), "play endurance")
    assert state.turn.mp == 5 + 3 and state.players[0].cards == ()
    assert len(state.discard) == 1


def test_several_cards_may_be_played_in_one_turn_and_the_points_shared_between_tribes():
    """The text: "You may play any number of cards during your turn", and the movement points
    "may be divided between your tribes as desired"."""
    endurances = tuple(i for i, name in enumerate(CARDS) if name == "endurance")[:2]
    base = start()
    base = replace(base, deck=tuple(c for c in base.deck if c not in endurances))
    state = turn(player(base, 0, cards=endurances))
    state = play(state, "play endurance", "play endurance")
    assert state.turn.mp == 5 + 3 + 3 and state.players[0].cards == () and len(state.discard) == 2
    state = play(state, "move b1 se", "move b2 se", "move b2 se")
    assert (tribe(state, "b1").pos, tribe(state, "b2").pos) == (TEMPLE, QUARRY) and state.turn.mp == 8


def test_card_priest_adds_one_mana_from_a_holy_place():
    base = arrange(start(), {"b4": ((-2, 0),)}, tiles=(plains(-2, 0, holy=0),))
    state = player(play(with_card("priest", base), "play priest"), 0, max_mana=8)
    assert rules.mana_gain(state, 0) == 2
    assert play(state, "end", "end").players[0].mana == 2


def test_card_fertility_makes_the_next_growth_bring_two_tribes():
    state = play(with_card("fertility", phase="action"), "play fertility", "grow -1,0")
    assert tribe(state, "b4").pos == A and tribe(state, "b5").pos == A


def test_card_holy_stone_counts_as_a_stone_delivered():
    state = play(with_card("holy-stone"), "play holy-stone")
    assert (state.players[0].mana, state.players[0].max_mana) == (1, 4)


def test_card_land_shows_the_top_three_tiles_only_to_its_player():
    state = play(with_card("land", arrange(start(), stack=("forest", "volcano", "plains", "quarry"))), "play land")
    assert GAME.view(state, 0)["peek"] == ["forest", "volcano", "plains"]
    assert "peek" not in GAME.view(state, 1) and "peek" not in GAME.view(state, None)
    state = play(state, "discover b1 nw")
    assert GAME.view(state, 0)["peek"] == ["volcano", "plains"]


def test_card_mana_theft_takes_one_mana_from_a_chosen_player():
    state = player(with_card("mana-theft"), 1, mana=2)
    assert [m for m in legal(state) if m.startswith("play")] == ["play mana-theft y"]
    state = play(state, "play mana-theft y")
    assert state.players[1].mana == 1 and state.players[0].mana == 1


def test_card_teleport_moves_any_tribe_with_its_load_but_not_onto_a_volcano():
    state = arrange(with_card("teleport"), {"y1": (B, "stone")})
    state = play(state, "play teleport y1")
    assert state.turn.phase == "target"
    assert "to 0,1" not in legal(state) and "to -1,1" not in legal(state)
    state = play(state, "to 1,-1")
    assert tribe(state, "y1") == Tribe(FOREST, "stone") and state.turn.phase == "move"


def test_the_boards_teleport_hint_does_not_promise_a_volcano():
    """The text: "A tribe may never move onto a volcano tile"; the spec: Teleport sends a tribe
    "to any tile but a volcano". The card's hint on the board says so, not "any tile"."""
    state = with_card("teleport")
    board = present(GAME.view(state, 0), 0, legal(state))
    hint = "move any tribe, with its load, to another tile (not a volcano)"
    assert [card["help"] for card in board["my_cards"]] == [hint]


def test_card_teleport_into_the_temple_delivers_the_load_for_its_owner():
    """The spec: Teleport moves a tribe "with its load to any tile but a volcano". In the
    temple the load is delivered as if the tribe had walked in; wood never enters."""
    state = player(arrange(with_card("teleport"), {"y1": (B, "stone")}), 1, mana=1, max_mana=3)
    state = play(state, "play teleport y1")
    assert GAME.describe(state, 0, "to 0,0").endswith("for Yellow: Yellow's mana 2 of 4.")
    state = play(state, "to 0,0")
    assert state.players[1].max_mana == 4 and state.players[1].mana == 2, "yellow's temple stone, not blue's"
    assert tribe(state, "y1") == Tribe(TEMPLE, "") and state.turn.phase == "move"

    offering = player(arrange(with_card("teleport"), {"b1": (FOREST, "offering", 4)}), 0, mana=4, hand=(2, 6, 7))
    delivered = play(offering, "play teleport b1", "to 0,0")
    assert delivered.players[0].delivered == (4,) and delivered.players[0].mana == 0
    assert tribe(delivered, "b1") == Tribe(None), "the carrier goes back to the supply"

    short = play(player(offering, 0, mana=3), "play teleport b1")
    assert "to 0,0" not in legal(short)
    assert GAME.explain_illegal(short, 0, "to 0,0") == refusals.MANA_SHORT.format(value=4, mana=3)
    # A rival's offering never goes in: whether Yellow could pay would tell its hidden value.
    for value, mana in ((2, 7), (7, 0)):
        rival = player(arrange(with_card("teleport"), {"y1": (B, "offering", value)}), 1, mana=mana)
        rival = play(rival, "play teleport y1")
        assert "to 0,0" not in legal(rival)
        refusal = GAME.explain_illegal(rival, 0, "to 0,0")
        assert refusal == refusals.RIVAL_OFFERING and str(value) not in refusal
    wood = play(arrange(with_card("teleport"), {"y1": (B, "wood")}), "play teleport y1")
    assert "to 0,0" not in legal(wood)
    with pytest.raises(IllegalMove, match="No wood may be carried into the temple"):
        play(wood, "to 0,0")


def test_card_expulsion_moves_a_hut_with_its_marker_to_plains_with_room():
    huts = (
        plains(-1, 0, huts=(Hut(0), Hut(2, 7))),
        plains(-2, 0),
        plains(-3, 1, holy=1),
        plains(-2, 1, huts=(Hut(1),)),
    )
    state = arrange(with_card("expulsion"), tiles=huts)
    state = play(state, "play expulsion -1,0 2")
    # Not B (two huts already), not a holy place, not where it stands.
    assert legal(state) == ["to -2,0", "to -2,1"]
    state = play(state, "to -2,0")
    assert tile_at(state, (-2, 0)).huts == (Hut(2, 7),) and tile_at(state, A).huts == (Hut(0),)
    assert state.turn.phase == "move"


def test_a_card_target_with_a_single_choice_is_not_asked():
    state = arrange(with_card("expulsion"), tiles=(plains(-2, 0),))
    state = play(state, "play expulsion -1,0 2")
    assert tile_at(state, (-2, 0)).huts == (Hut(2),) and state.turn.phase == "move"


def test_played_cards_leave_the_game_in_the_remove_variant():
    state = play(with_card("endurance", start(discard="remove")), "play endurance")
    assert state.discard == () and state.gone == (CARDS.index("endurance"),)
    assert GAME.conserved(state)["cards"] == 18
    for seat in (0, 1, None):  # played face up: everyone may see which cards left the game
        html = " ".join(
            render_to_string(
                "games/boards/mesopotamia.html",
                {"view": GAME.view(state, seat), "board": present(GAME.view(state, seat), seat, []), "match": None},
            ).split()
        )
        assert "discard 0 · out of the game 1 (Endurance) ·" in html
        assert "18 cards" not in html, "three players: cards were set aside"
    two = start(2)
    html = " ".join(
        render_to_string(
            "games/boards/mesopotamia.html",
            {"view": GAME.view(two, 0), "board": present(GAME.view(two, 0), 0, []), "match": None},
        ).split()
    )
    assert "A two-player game starts with all 18 cards (none set aside)." in html, "not 'all 18 are in play'"


def test_the_start_card_variant_deals_one_card_each_playable_at_once():
    state = start(4, start_card="yes")
    assert [len(p.cards) for p in state.players] == [1, 1, 1, 1] and len(state.deck) == 14
    assert state.players[0].cards[0] not in state.turn.fresh
    assert rules.playable_cards(state, 0)


# --- the end ---------------------------------------------------------------------------------------


def test_fifteen_rounds_without_an_offering_end_the_game():
    state = start(2)
    for _ in range(STALL_ROUNDS * 2):
        assert not GAME.is_over(state)
        state = play(state, "end", "end")
    assert state.end_reason == "stalled" and GAME.outcome(state).winners == (0, 1)
    html = " ".join(
        render_to_string(
            "games/boards/mesopotamia.html",
            {
                "view": GAME.view(state, 0),
                "board": present(GAME.view(state, 0), 0, []),
                "match": None,
                "names": {0: "Alice", 1: "Bob"},
            },
        ).split()
    )
    assert re.search(r"Game over:</strong> <span[^>]*>Alice</span> and <span[^>]*>Bob</span> share the win", html)


def test_the_game_ends_after_the_last_round_with_the_best_delivered_value_winning():
    state = arrange(start(2), turn_number=MAX_ROUNDS * 2 - 1, last_offering_turn=MAX_ROUNDS * 2 - 2)
    state = player(turn(state, 1), 0, delivered=(6,), hand=(2, 4, 7))
    state = player(state, 1, delivered=(2, 4), hand=(6, 7))
    state = play(state, "end", "end")
    assert state.end_reason == "rounds"
    assert GAME.outcome(state).scores == (6, 6) and GAME.outcome(state).winners == (0, 1)


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


# --- secrets --------------------------------------------------------------------------------------


def hidden_of(state: State, seat: int) -> tuple[list[str], list[str]]:
    """(ids, card names) that only ``seat`` may see right now."""
    ids = GAME.secrets(state, seat)
    names = [CARDS[c] for c in state.players[seat].cards]
    return ids, names


PUBLIC_CARD_KEYS = ("discard", "out_of_game")


def strip_public_cards(view: dict, viewer: int | None) -> dict:
    """The view without the places where cards are shown face up to the viewer: played
    cards, the viewer's own hand and its own moves."""
    view = {k: v for k, v in view.items() if k not in (*PUBLIC_CARD_KEYS, "legal_moves")}
    view["turn"] = {k: v for k, v in view["turn"].items() if k != "pending"}  # a card being played
    if viewer is not None:
        view["players"] = [{k: v for k, v in p.items() if k != "hand"} for p in view["players"]]
    return view


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {"start_card": "yes"}), (4, {"discard": "remove"})])
def test_views_and_the_move_log_never_show_another_seats_secrets_or_the_stack(players, options):
    for seed in (11, 12):
        rng = random.Random(seed)
        state = GAME.initial_state(players, options, seed)
        while not GAME.is_over(state):
            seat = state.turn.seat
            move = rng.choice(GAME.legal_moves(state, seat)) if rng.random() < 0.7 else GAME.ai_move(state, seat, 2, 1)
            line = GAME.describe(state, seat, move)
            if move == "draw":
                assert not any(name.replace("-", " ") in line.lower() for name in CARDS), line
            views = {viewer: GAME.view(state, viewer) for viewer in [None, *range(players)]}
            stack_text = json.dumps(list(state.stack))
            for viewer, view in views.items():
                text = json.dumps(strip_public_cards(view, viewer))
                peeked_all = viewer is not None and state.known_top[viewer] >= len(state.stack)
                assert "stack_order" not in view and "deck_order" not in view
                assert len(state.stack) < 2 or peeked_all or stack_text not in text
                if viewer is None or not state.known_top[viewer]:
                    assert "peek" not in view
                for other in range(players):
                    if other == viewer:
                        continue
                    ids, names = hidden_of(state, other)
                    assert not any(i in text or i in line for i in ids), (viewer, other)
                    if other != viewer and viewer is not None:
                        assert "hand" not in view["players"][other] and "offerings" not in view["players"][other]
                    for card in names:
                        assert f'"{card}"' not in text
            state = GAME.apply(state, seat, move)
        assert GAME.secrets(state, 0) == []


def test_building_a_hut_reads_the_same_whatever_marker_goes_under_it():
    state = site_state("wood", "")
    lines = {GAME.describe(state, 0, f"hut -2,0 {v}") for v in OFFERINGS}
    assert len(lines) == 1 and "hidden offering" in lines.pop()
    after = play(state, "hut -2,0 6")
    other = json.dumps(GAME.view(after, 1))
    assert offering_id(0, 6) not in other
    assert GAME.view(after, 1)["tiles"][-1]["huts"] == [{"owner": 0, "colour": "blue", "offering": True}]
    assert GAME.view(after, 0)["tiles"][-1]["huts"][0]["value"] == 6


def test_picking_up_a_marker_and_drawing_a_card_read_the_same_for_every_value():
    state = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0, 6), Hut(0, 2))),)))
    assert GAME.describe(state, 0, "carry b1 offering 6") == GAME.describe(state, 0, "carry b1 offering 2")
    draws = {GAME.describe(turn(arrange(start(), deck=(c, 0)), phase="action"), 0, "draw") for c in range(18)}
    assert draws == {"Blue draws a card."}


def test_a_carried_marker_shows_only_to_its_owner():
    state = arrange(start(), {"b1": (A, "offering", 7)})
    assert GAME.view(state, 0)["tribes"][0]["value"] == 7
    assert "value" not in GAME.view(state, 1)["tribes"][0]
    assert GAME.view(state, 1)["tribes"][0]["load"] == "offering"


def test_cards_in_hand_show_only_to_their_holder_until_the_end():
    state = with_card("teleport")
    assert GAME.view(state, 0)["players"][0]["hand"][0]["name"] == "teleport"
    assert card_id(state.players[0].cards[0]) not in json.dumps(GAME.view(state, 1))
    assert GAME.view(state, 1)["players"][0]["cards"] == 1


def test_after_the_game_every_secret_is_revealed():
    state = player(turn(arrange(start(), {"b1": (A, "offering", 7)})), 0, mana=7, hand=(), delivered=(2, 4, 6))
    state = player(state, 1, cards=(3,))
    state = arrange(state, tiles=(plains(-2, 0, huts=(Hut(1, 6),)),))
    over = play(state, "move b1 se")
    view = json.dumps(GAME.view(over, 2))
    assert offering_id(1, 6) in view and card_id(3) in view
    assert GAME.view(over, 2)["stack_order"] == list(over.stack)
    assert GAME.view(over, 2)["deck_order"] == [CARDS[c] for c in over.deck] and over.deck


# --- the AI -----------------------------------------------------------------------------------------


def test_the_ai_decides_only_on_what_its_seat_may_know():
    """Changing other seats' hidden markers and cards and the unseen stack order never
    changes the AI's move."""
    rng = random.Random(3)
    state = start(3, seed=5)
    for _ in range(150):
        seat = state.turn.seat
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 9))
        if GAME.is_over(state):
            break
        seat = state.turn.seat
        other = (seat + 1) % 3
        stack = list(state.stack)
        rng.shuffle(stack)
        pool = list(state.deck) + list(state.players[other].cards)
        rng.shuffle(pool)
        n = len(state.players[other].cards)
        disguised = player(replace(state, stack=tuple(stack), deck=tuple(pool[n:])), other, cards=tuple(pool[:n]))
        for level in GAME.ai_levels:
            assert GAME.ai_move(disguised, seat, level, 9) == GAME.ai_move(state, seat, level, 9)


def test_the_ai_is_deterministic_and_legal():
    state = start(4, seed=3)
    for _ in range(120):
        seat = state.turn.seat
        move = GAME.ai_move(state, seat, 2, 4)
        assert move == GAME.ai_move(state, seat, 2, 4) and move in legal(state)
        state = GAME.apply(state, seat, move)


def test_the_strong_ai_delivers_offerings_against_random_players():
    rng = random.Random(1)
    state = start(3, seed=21)
    while not GAME.is_over(state):
        seat = state.turn.seat
        move = GAME.ai_move(state, seat, 2, 1) if seat == 0 else rng.choice(legal(state))
        state = GAME.apply(state, seat, move)
    assert state.end_reason == "offerings" and GAME.outcome(state).winners == (0,)


def test_the_easy_ai_does_not_pick_things_up_and_put_them_down_again():
    """Free steps (carry, drop) only when they help: Easy's noise once made it pick a stone up
    and put it down again 20 times in one turn, each a line of the log."""
    longest = 0
    for seed in range(3):
        rng, state, run = random.Random(seed), start(3, seed=seed), 0
        while not GAME.is_over(state) and state.ply < 600:
            seat = state.turn.seat
            move = GAME.ai_move(state, seat, 1, seed) if seat == 0 else rng.choice(legal(state))
            if seat == 0:
                run = run + 1 if move.split()[0] in ("carry", "drop") else 0
                longest = max(longest, run)
            state = GAME.apply(state, seat, move)
    assert longest <= 6


# --- properties ----------------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), start_card=st.booleans(), remove=st.booleans())
def test_random_games_conserve_components_keep_mana_in_range_and_end(seed, players, start_card, remove):
    options = {"start_card": "yes" if start_card else "no", "discard": "remove" if remove else "reshuffle"}
    state = GAME.initial_state(players, options, seed)
    expected = {"tiles": 41, "wood": 20, "stone": 20, "cards": 18, "offerings": 4 * players}
    rng = random.Random(seed)
    for _ in range(GAME.playout_limit):
        assert GAME.conserved(state) == expected
        for p in state.players:
            assert 0 <= p.mana <= p.max_mana <= 8
        if GAME.is_over(state):
            break
        state = GAME.apply(state, state.turn.seat, rng.choice(legal(state)))
    assert GAME.is_over(state)
    assert GAME.load(json.loads(json.dumps(GAME.dump(state)))) == state


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
        assert all("choose one below the map" in h["move_title"] for h in ambiguous)
        if ambiguous:
            assert len(on_map) + 2 * len(ambiguous) <= len(choices)
        else:
            assert sorted(on_map) == sorted(choices), "every choice is on the map"
        assert all(not h["choice"] for h in board["hexes"] if "move" not in h)
        clicked_kinds |= {move.split()[0] for move in on_map}
        ambiguous_seen += bool(ambiguous)
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 3))
    assert {"discover", "stone", "to"} <= clicked_kinds
    assert ambiguous_seen, "two tribes could discover the same hex at some point"


def test_the_strong_ai_teleports_its_offering_straight_into_the_temple():
    far = (3, -1)
    state = arrange(
        with_card("teleport"),
        {"b1": (far, "offering", 4), "y1": (A,)},
        clear=True,
        tiles=(plains(2, -1), plains(3, -1)),
    )
    state = turn(player(state, 0, mana=4, hand=(2, 6, 7), cards=(CARDS.index("teleport"),)), mp=1)
    assert GAME.ai_move(state, 0, 2, 1) == "play teleport b1"
    state = play(state, "play teleport b1")
    assert GAME.ai_move(state, 0, 2, 1) == "to 0,0"


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
