"""Mesopotamia: refused moves name the rule they break, each hut grows the population once a
turn wherever Expulsion takes it, and a short supply of wood or stone lets the mover choose.
Rules from docs/rules/mesopotamia.md (the rule summary and the decisions table)."""

from __future__ import annotations

import pytest

from games.engine import IllegalMove
from games.rules.mesopotamia.state import CARDS, Hut, State
from tests.rules.mesopotamia_positions import (
    FOREST,
    QUARRY,
    SITE,
    A,
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
    with_card,
)


def refused(state: State, move: str) -> str:
    """The message ``move`` is refused with (it must not be among the legal moves)."""
    assert move not in legal(state)
    with pytest.raises(IllegalMove) as refusal:
        play(state, move)
    return str(refusal.value)


# --- refusals name the real reason -----------------------------------------------------------


def test_a_fourth_holy_place_is_refused_because_all_three_are_built():
    """Spec: "per colour ... 3 holy places"."""
    built = (plains(-2, 1, holy=0), plains(-3, 1, holy=0), plains(-3, 0, holy=0))
    state = arrange(site_state("stone", ""), tiles=built)
    assert refused(state, "holy -2,0") == "You have already built all 3 of your holy places."


def test_growth_with_every_tribe_on_the_board_says_the_supply_is_empty():
    """Text: "Place a tribe of your color from your supply"."""
    state = turn(arrange(start(), {f"b{i}": (A,) for i in range(4, 9)}), phase="action")
    assert refused(state, "grow -1,0") == "All your tribes are on the board: none is left in your supply to join them."


def test_a_hut_refused_for_its_marker_names_the_marker():
    """Text: "choose one of your remaining offering markers and place it facedown underneath the hut"."""
    used = player(site_state("wood", ""), 0, hand=(2, 4, 7))
    assert refused(used, "hut -2,0 6") == "Your offering marker 6 is no longer in your hand (you still hold 2, 4, 7)."
    assert refused(used, "hut -2,0 9") == "There is no offering marker 9: the markers are worth 2, 4, 6 and 7."
    none_left = player(site_state("wood", ""), 0, hand=())
    assert refused(none_left, "hut -2,0 2") == "You have no offering marker left to put under a hut."


def test_drawing_from_an_empty_deck_says_no_card_is_left():
    """Text: "Played cards go into a discard pile and reshuffled into a new deck when the deck
    is exhausted"; variant: "All cards played are removed from the game"."""
    empty = turn(arrange(start(), deck=(), discard=()), phase="action")
    assert refused(empty, "draw") == "There is no card left to draw: the deck and the discard pile are empty."
    removed = turn(arrange(start(discard="remove"), deck=(), gone=tuple(range(len(CARDS)))), phase="action")
    assert refused(removed, "draw") == (
        "There is no card left to draw: the deck is empty and played cards have left the game."
    )


def test_drawing_after_another_action_says_that_action_was_chosen():
    """Text: "Conduct one of the following actions"."""
    two_huts = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0), Hut(0))),)), phase="action")
    grew = play(two_huts, "grow -1,0")
    assert refused(grew, "draw") == "You chose another action this turn; only that one may be repeated."
    drew = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0), Hut(0))),)), phase="action", action="draw")
    assert refused(drew, "draw") == "You may draw only one card a turn, and it is your action."


def test_carrying_what_the_tribe_already_carries_says_so():
    """Text: "Each tribe may pick up and carry 1 wood or 1 stone (only 1 at a time)"."""
    at_quarry = turn(arrange(start(), {"b1": (QUARRY, "stone")}))
    assert refused(at_quarry, "carry b1 stone") == "b1 already carries a stone."
    elsewhere = turn(arrange(start(), {"b1": (A, "wood")}))
    assert refused(elsewhere, "carry b1 wood") == "b1 already carries a wood."


def test_stealing_from_a_tribe_on_another_tile_says_so():
    """Text: "If you have more tribes on a tile than another player ... you may take 1 resource
    from 1 of that player's tribes"."""
    state = turn(arrange(start(), {"b1": (FOREST,), "b2": (FOREST,), "y1": (QUARRY, "wood")}))
    assert refused(state, "steal b1 y1") == "y1 is not on b1's tile: a tribe steals only on its own tile."


def test_stealing_from_an_own_tribe_says_so():
    """Text: "take 1 resource from 1 of that player's tribes" (another player's)."""
    state = turn(arrange(start(), {"b1": (FOREST,), "b2": (FOREST, "wood")}))
    assert refused(state, "steal b1 b2") == "You cannot steal from your own tribes."


def test_moving_off_the_map_says_why_no_discovery_is_possible():
    """Spec: "At most 3 discoveries per turn ... No discovery once the stack is empty"."""
    no_land = turn(arrange(start(), stack=()))
    assert refused(no_land, "move b1 nw") == (
        "There is no tile there, and the stack is empty: no land is left to discover."
    )
    limit = turn(arrange(start(), stack=("plains",)), discoveries=3)
    assert refused(limit, "move b1 nw") == "There is no tile there, and you have made all 3 discoveries a turn allows."
    open_land = turn(arrange(start(), stack=("plains",)))
    assert refused(open_land, "move b1 nw") == "There is no tile there: discover it instead."


@pytest.mark.parametrize("move", ["hut 9,9 2", "holy 9,9", "grow 9,9"])
def test_building_or_growing_where_no_tile_lies_says_so(move):
    state = site_state("wood", "")
    assert refused(state, move) == "There is no tile at 9,9."


# --- once per hut and turn -------------------------------------------------------------------

EXPULSIONS = tuple(i for i, name in enumerate(CARDS) if name == "expulsion")


def test_a_hut_that_has_grown_does_not_grow_again_after_expulsion():
    """Spec: population growth "Once per hut per turn [ours]": Expulsion moving a hut that
    has grown to a tile with two more of the player's tribes gives no second growth."""
    state = arrange(
        with_card("expulsion", phase="action"),
        {"b3": (SITE,), "b4": (SITE,), "b5": ((-2, 1),), "b6": ((-2, 1),)},
        tiles=(plains(*SITE), plains(-2, 1, huts=(Hut(0),))),
    )
    state = play(state, "grow -1,0", "play expulsion -1,0 1", "to -2,0")
    assert tile_at(state, SITE).huts == (Hut(0),) and state.turn.seat == 0
    assert "grow -2,0" not in legal(state) and "grow -2,1" in legal(state)
    with pytest.raises(IllegalMove, match="once per hut and turn"):
        play(state, "grow -2,0")


@pytest.mark.parametrize(("expelled", "grows", "stays"), [(1, "grow -1,0", "grow -2,0"), (2, "grow -2,0", "grow -1,0")])
def test_of_two_huts_on_a_tile_the_first_grows_first_and_expulsion_picks_which_moves(expelled, grows, stays):
    """Spec: "Once per hut per turn": two own huts on a tile grow it twice; after one growth
    the hut that grew stays used wherever Expulsion takes it, the other may still grow."""
    huts = (plains(-1, 0, huts=(Hut(0), Hut(0))), plains(*SITE))
    state = arrange(with_card("expulsion", phase="action"), {"b4": (SITE,), "b5": (SITE,)}, tiles=huts)
    state = play(state, "grow -1,0", f"play expulsion -1,0 {expelled}")  # -2,0 is the only place for it
    assert Hut(0) in tile_at(state, SITE).huts
    assert grows in legal(state) and stays not in legal(state)
    state = play(state, grows)
    assert tribe(state, "b7").pos is not None and state.turn.seat == 1


def test_a_hut_that_has_grown_stays_used_through_two_expulsions():
    """Spec: "Once per hut per turn": the hut that grew, moved beside another hut of the same
    player (one with an offering marker under it), is still the used one when it moves on."""
    state = arrange(
        start(),
        {"b3": (SITE,), "b4": (SITE,), "b5": ((-3, 1),), "b6": ((-3, 1),)},
        tiles=(plains(*SITE, huts=(Hut(0, 6),)), plains(-3, 1)),
    )
    deck = tuple(c for c in state.deck if c not in EXPULSIONS)
    state = turn(player(arrange(state, deck=deck), 0, hand=(2, 4, 7), cards=EXPULSIONS), phase="action")
    state = play(state, "grow -1,0", "play expulsion -1,0 1", "to -2,0")
    grown_hut = tile_at(state, SITE).huts.index(Hut(0)) + 1
    state = play(state, f"play expulsion -2,0 {grown_hut}", "to -3,1")
    assert tile_at(state, (-3, 1)).huts == (Hut(0),)
    assert tribe(state, "b8").pos is None and state.turn.seat == 1, "no second growth: the turn passed"


# --- a short supply of wood or stone -----------------------------------------------------------


def test_a_short_supply_lets_the_mover_choose_with_one_on_the_new_tile():
    """Text: "If there are not enough resources, the player chooses where they go, but at
    least one resource must go on the new tile." Four players, two wood left, one forest on
    the map: the mover may put both on the new forest."""
    state = turn(arrange(start(4), stack=("forest",), wood_supply=2))
    state = play(state, "discover b1 nw")
    assert state.turn.phase == "place" and legal(state) == ["wood -2,0", "wood 1,-1"]
    both = play(state, "wood -2,0")
    assert tile_at(both, (-2, 0)).wood == 2 and tile_at(both, FOREST).wood == 4 and both.wood_supply == 0
    shared = play(state, "wood 1,-1")
    assert tile_at(shared, (-2, 0)).wood == 1 and tile_at(shared, FOREST).wood == 5


def test_a_short_supply_asks_for_each_resource_and_gives_an_old_tile_at_most_one():
    """Three of four stones left with one quarry on the map: one goes on the new quarry, the
    mover places the other two, the old quarry getting one at most."""
    state = turn(arrange(start(4), stack=("quarry",), stone_supply=3))
    state = play(state, "discover b1 nw", "stone 1,0")
    assert tile_at(state, (-2, 0)).stone == 2 and tile_at(state, QUARRY).stone == 5
    assert state.turn.phase == "move" and state.stone_supply == 0


def test_a_mana_theft_that_cannot_be_played_says_why():
    """Spec: Mana Theft takes 1 mana from a player who has some ([code] while below one's maximum)."""
    state = with_card("mana-theft", player(start(), 1, mana=0))
    assert refused(state, "play mana-theft y") == "Yellow has no mana to take."
    assert refused(state, "play mana-theft r") == "Name a player to steal from by colour: y (yellow), g (green)."
    full = player(with_card("mana-theft", player(start(), 1, mana=2)), 0, mana=3, max_mana=3)
    assert refused(full, "play mana-theft y") == "Your mana is at its maximum: a stolen mana would be lost."
