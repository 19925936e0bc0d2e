"""Mesopotamia: carrying, dropping and stealing resources, stones that build the temple,
offerings carried and delivered for mana, and the end of the game (the fourth offering, fifteen
rounds without one, the last round). Rules from docs/rules/mesopotamia.md (the rule summary and
the decisions table)."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from games.boards.mesopotamia import present
from games.engine import IllegalMove
from games.rules.mesopotamia import GAME, refusals
from games.rules.mesopotamia.state import MAX_ROUNDS, STALL_ROUNDS, Hut, Tile, Tribe
from tests.rules.mesopotamia_positions import (
    FOREST,
    QUARRY,
    TEMPLE,
    A,
    arrange,
    legal,
    plains,
    play,
    player,
    start,
    tile_at,
    tribe,
    turn,
)

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
