"""Mesopotamia's actions: huts and holy places, population growth, drawing a card, one kind of
action a turn repeated while possible, and the mana that holy places give. Rules from
docs/rules/mesopotamia.md (the rule summary and the decisions table)."""

from __future__ import annotations

import pytest

from games.engine import IllegalMove
from games.rules.mesopotamia import GAME, rules
from games.rules.mesopotamia.state import CARDS, OFFERINGS, Hut
from tests.rules.mesopotamia_positions import (
    SITE,
    A,
    B,
    arrange,
    legal,
    plains,
    play,
    player,
    site_state,
    start,
    tile_at,
    tribe,
    turn,
)

# --- actions: huts, holy places, growth, cards -------------------------------------------------------


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
