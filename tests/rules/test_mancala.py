"""Mancala scenarios, sentence by sentence from the rule text (as summarised in
docs/rules/mancala.md) and our decisions (the decisions table of docs/rules/mancala.md),
plus property tests over random games and random positions."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalMove, Outcome, get_game
from games.engine.base import GAME_IS_OVER, NOT_YOUR_TURN
from games.rules.mancala.game import EMPTY_TILE, SINGLE_COIN
from games.rules.mancala.notation import (
    CHOOSE_DIRECTION,
    NAME_A_TILE,
    NAME_A_TILE_AND_DIRECTION,
    NO_DIRECTION_HERE,
    TILE_RANGE,
    UNKNOWN_DIRECTION,
)
from games.rules.mancala.rules import EGYPTIAN, ETHIOPIAN, KALAH, NIGERIAN, STALL_LIMIT, SWEEPING, VARIANTS, State

GAME = get_game("mancala")
FULL = (4, 4, 4, 4, 4, 4)


def position(p1, p2, mancalas=(0, 0), to_move=0, variant=EGYPTIAN) -> State:
    """A running position from Player 1's and Player 2's tiles, each from its owner's left."""
    return State(variant, (tuple(p1), tuple(p2)), tuple(mancalas), to_move, False, 0, 0)


def play(state: State, *moves: str) -> State:
    for move in moves:
        state = GAME.apply(state, state.to_move, move)
    return state


def board(state: State) -> tuple:
    """``(Player 1's tiles, Player 2's tiles, mancalas, seat to move)`` for exact comparisons."""
    return state.tiles[0], state.tiles[1], state.mancalas, state.to_move


# --- Setup --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_places_four_coins_on_each_tile_and_none_in_the_mancalas(variant):
    state = GAME.initial_state(2, {"variant": variant}, seed=1)
    assert state.tiles == (FULL, FULL)
    assert state.mancalas == (0, 0)
    assert GAME.conserved(state) == {"coins": 48}


def test_player_one_starts_and_egyptian_is_the_default_variant():
    state = GAME.initial_state(2, {}, seed=1)
    assert state.variant == EGYPTIAN
    assert GAME.to_act(state) == (0,)
    assert GAME.legal_moves(state, 1) == []


# --- General rules -------------------------------------------------------------------


def test_general_scoop_a_tile_and_drop_one_coin_per_hole_to_the_right():
    after = play(GAME.initial_state(2, {}, seed=1), "1")
    assert board(after) == ((0, 5, 5, 5, 5, 4), FULL, (0, 0), 1)


def test_general_sowing_continues_counterclockwise_onto_the_opponents_tiles():
    after = play(GAME.initial_state(2, {}, seed=1), "6")
    assert board(after) == ((4, 4, 4, 4, 4, 0), (5, 5, 5, 4, 4, 4), (1, 0), 1)


def test_general_players_may_only_start_from_their_own_non_empty_tiles():
    state = position((0, 2, 0, 0, 0, 1), FULL)
    assert GAME.legal_moves(state, 0) == ["2", "6"]
    with pytest.raises(IllegalMove, match=EMPTY_TILE):
        GAME.apply(state, 0, "1")


def test_general_players_take_turns():
    state = play(GAME.initial_state(2, {}, seed=1), "1")
    with pytest.raises(IllegalMove, match=NOT_YOUR_TURN):
        GAME.apply(state, 0, "2")
    assert GAME.to_act(play(state, "1")) == (0,)


def test_general_a_lap_around_drops_into_the_starting_tile_and_can_capture_there():
    """[ours] The 13th coin of an Egyptian sowing lands in the emptied start tile: a capture."""
    after = play(position((13, 0, 0, 0, 0, 0), (1, 1, 1, 1, 1, 1)), "1")
    assert board(after) == ((0, 1, 1, 1, 1, 1), (2, 2, 2, 2, 2, 0), (4, 0), 1)


def test_general_two_laps_leave_two_coins_in_the_start_tile_and_capture_nothing():
    """What the rules page says: only the one-lap sowing of exactly 13 ends in an empty tile."""
    after = play(position((26, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1)), "1")
    assert board(after) == ((2, 2, 2, 2, 2, 2), (2, 2, 2, 2, 2, 3), (2, 0), 1)


def test_general_a_nigerian_lap_of_fourteen_ends_in_the_emptied_start_tile():
    after = play(position((14, 0, 0, 0, 0, 0), (0,) * 6, variant=NIGERIAN), "1")
    assert board(after) == ((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1), (1, 1), 1)


# --- Egyptian ------------------------------------------------------------------------


def test_egyptian_players_skip_the_opponents_mancala():
    after = play(position((1, 1, 1, 1, 1, 9), (1, 1, 1, 1, 1, 1)), "6")
    assert board(after) == ((2, 2, 1, 1, 1, 0), (2, 2, 2, 2, 2, 2), (1, 0), 1)


def test_egyptian_last_coin_in_own_mancala_moves_again():
    after = play(GAME.initial_state(2, {}, seed=1), "3")
    assert board(after) == ((4, 4, 0, 5, 5, 5), FULL, (1, 0), 0)


def test_egyptian_last_coin_in_an_empty_own_tile_takes_it_and_the_tile_across():
    after = play(position((2, 0, 0, 0, 0, 3), (1, 1, 1, 5, 1, 1)), "1")
    assert board(after) == ((0, 1, 0, 0, 0, 3), (1, 1, 1, 0, 1, 1), (6, 0), 1)


def test_egyptian_captures_a_lone_coin_even_when_the_tile_across_is_empty():
    after = play(position((2, 0, 0, 0, 0, 3), (1, 1, 1, 0, 1, 1)), "1")
    assert board(after) == ((0, 1, 0, 0, 0, 3), (1, 1, 1, 0, 1, 1), (1, 0), 1)


def test_egyptian_no_capture_in_an_empty_tile_on_the_opponents_side():
    after = play(position((1, 0, 0, 0, 0, 2), (0, 3, 3, 3, 3, 3)), "6")
    assert board(after) == ((1, 0, 0, 0, 0, 0), (1, 3, 3, 3, 3, 3), (1, 0), 1)


def test_egyptian_no_capture_when_the_last_coin_lands_on_a_non_empty_own_tile():
    after = play(position((2, 0, 1, 0, 0, 3), (1, 1, 1, 5, 1, 1)), "1")
    assert board(after) == ((0, 1, 2, 0, 0, 3), (1, 1, 1, 5, 1, 1), (0, 0), 1)


def test_egyptian_game_ends_when_the_mover_empties_his_tiles_and_the_other_sweeps():
    """The end also takes precedence over the extra turn the last coin earned."""
    after = play(position((0, 0, 0, 0, 0, 1), (1, 2, 3, 0, 0, 0), (20, 21)), "6")
    assert after.over and GAME.to_act(after) == ()
    assert after.tiles == ((0,) * 6, (0,) * 6)
    assert GAME.outcome(after) == Outcome(scores=(21, 27), winners=(1,))


def test_egyptian_game_ends_when_a_capture_empties_the_opponents_tiles():
    after = play(position((1, 0, 0, 0, 0, 5), (0, 0, 0, 0, 3, 0), (10, 29)), "1")
    assert after.over
    assert after.tiles == ((0,) * 6, (0,) * 6)
    assert GAME.outcome(after) == Outcome(scores=(19, 29), winners=(1,))


def test_egyptian_most_coins_wins_and_a_draw_lists_both_winners():
    after = play(position((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1), (23, 23)), "6")
    assert GAME.outcome(after) == Outcome(scores=(24, 24), winners=(0, 1))


def test_outcome_is_none_while_the_game_runs():
    assert GAME.outcome(GAME.initial_state(2, {}, seed=1)) is None


def test_a_finished_game_refuses_every_move():
    after = play(position((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1), (23, 23)), "6")
    with pytest.raises(IllegalMove, match=GAME_IS_OVER):
        GAME.apply(after, 1, "6")


# --- Ethiopian -----------------------------------------------------------------------


def test_ethiopian_players_choose_right_or_left_on_each_turn():
    state = GAME.initial_state(2, {"variant": ETHIOPIAN}, seed=1)
    assert GAME.legal_moves(state, 0) == [f"{n}{d}" for n in range(1, 7) for d in "lr"]


def test_ethiopian_sowing_left_skips_the_opponents_mancala_and_reaches_your_own_last():
    after = play(position((0, 9, 0, 0, 0, 1), (1, 1, 1, 1, 1, 1), variant=ETHIOPIAN), "2l")
    assert board(after) == ((1, 0, 0, 0, 0, 2), (2, 2, 2, 2, 2, 2), (1, 0), 1)


def test_ethiopian_sowing_right_works_as_in_egyptian():
    after = play(GAME.initial_state(2, {"variant": ETHIOPIAN}, seed=1), "3r")
    assert board(after) == ((4, 4, 0, 5, 5, 5), FULL, (1, 0), 0)


def test_ethiopian_last_coin_in_own_mancala_going_left_moves_again():
    after = play(position((0, 8, 0, 0, 0, 2), (1, 1, 1, 1, 1, 1), variant=ETHIOPIAN), "2l")
    assert board(after) == ((1, 0, 0, 0, 0, 2), (2, 2, 2, 2, 2, 2), (1, 0), 0)


def test_ethiopian_capture_going_left():
    after = play(position((1, 0, 0, 2, 0, 2), (2, 1, 1, 1, 3, 1), variant=ETHIOPIAN), "4l")
    assert board(after) == ((1, 0, 1, 0, 0, 2), (2, 1, 1, 1, 0, 1), (4, 0), 1)


def test_ethiopian_never_start_from_a_tile_with_only_one_coin():
    state = position((1, 2, 0, 0, 0, 0), FULL, variant=ETHIOPIAN)
    assert GAME.legal_moves(state, 0) == ["2l", "2r"]
    with pytest.raises(IllegalMove, match=SINGLE_COIN):
        GAME.apply(state, 0, "1r")


def test_ethiopian_a_left_sowing_that_empties_the_movers_tiles_ends_the_game_and_the_other_sweeps():
    """The text: "Use all General Rules and all Egyptian Rules"; "The game ends when one player no
    longer has coins on his tiles. The other player (who still has coins on his side) places all
    remaining coins into his own mancala" -- also after a sowing to the left."""
    after = play(position((2, 0, 0, 0, 0, 0), (1,) * 6, (20, 20), variant=ETHIOPIAN), "1l")
    assert after.over and after.tiles == ((0,) * 6, (0,) * 6)
    assert GAME.outcome(after) == Outcome(scores=(20, 28), winners=(1,))


def test_ethiopian_a_lone_coin_capture_going_left_with_the_tile_across_empty():
    """Egyptian's "he takes that stone, plus all the coins in the opponent's tile directly across"
    holds to the left as well, even when the tile across is empty."""
    after = play(position((0, 0, 2, 0, 0, 3), (3, 3, 3, 3, 3, 0), variant=ETHIOPIAN), "3l")
    assert board(after) == ((0, 1, 0, 0, 0, 3), (3, 3, 3, 3, 3, 0), (1, 0), 1)


@pytest.mark.parametrize(
    ("variant", "move", "message"),
    [(ETHIOPIAN, "1", SINGLE_COIN), (ETHIOPIAN, "3", EMPTY_TILE), (EGYPTIAN, "3r", EMPTY_TILE)],
)
def test_a_tile_that_cannot_be_sown_is_named_before_the_direction(variant, move, message):
    """No "choose a direction" for a tile that cannot be sown in any direction."""
    state = position((1, 2, 0, 0, 0, 0), FULL, variant=variant)
    with pytest.raises(IllegalMove) as raised:
        GAME.apply(state, 0, move)
    assert str(raised.value) == message


# Twelve moves going left that bank nothing and come back to the same position (every other
# turn passes by itself: all of that player's tiles hold one coin).
CYCLE = ("3l", "1l", "6l", "4l", "5l", "2l", "3l", "1l", "6l", "4l", "5l", "2l")


def test_ethiopian_a_game_that_banks_nothing_for_50_moves_ends_and_each_player_banks_his_tiles():
    """[code] Sowing to the left can send the same coins round for ever; the stall rule ends it."""
    start = position((1, 0, 2, 1, 0, 0), (0, 1, 0, 1, 0, 1), mancalas=(22, 19), variant=ETHIOPIAN)
    assert board(play(start, *CYCLE)) == board(start), "a cycle: nothing else would end it"
    state, moves = start, list(CYCLE * 5)
    for played in range(1, STALL_LIMIT):
        state = play(state, moves[played - 1])
        assert not state.over and state.quiet_moves == played
    last = moves[STALL_LIMIT - 1]
    assert GAME.describe(state, state.to_move, last).endswith(
        "50 moves in a row banked no coin, so the game ends; "
        "Player 1 banks the 2 coins left on their tiles and Player 2 the 5 left on theirs."
    )
    state = play(state, last)
    assert state.over and state.tiles == ((0,) * 6, (0,) * 6) and state.mancalas == (22 + 2, 19 + 5)
    assert state.quiet_moves == STALL_LIMIT, "the count that ended the game stays, for the board to say so"
    assert GAME.outcome(state).winners == (0, 1), "24 each: a draw"


def test_a_banked_coin_starts_the_stall_count_again_and_old_positions_load_with_none():
    state = play(GAME.initial_state(2, {"variant": ETHIOPIAN}, seed=1), "3r")  # the last coin in the mancala
    assert state.quiet_moves == 0
    state = play(state, "1l")
    assert state.quiet_moves == 1
    stored = GAME.dump(state)
    del stored["quiet_moves"]  # as matches stored before the rule
    assert GAME.load(stored).quiet_moves == 0


def test_ethiopian_a_bare_tile_number_asks_for_a_direction():
    state = GAME.initial_state(2, {"variant": ETHIOPIAN}, seed=1)
    with pytest.raises(IllegalMove, match=CHOOSE_DIRECTION.format(tile=3)):
        GAME.apply(state, 0, "3")


def test_ethiopian_a_player_with_only_single_coins_passes_automatically():
    """[ours] No legal move: the turn passes inside ``apply``."""
    after = play(position((2, 0, 0, 0, 0, 2), (0, 1, 0, 1, 0, 0), variant=ETHIOPIAN), "6r")
    assert board(after) == ((2, 0, 0, 0, 0, 0), (1, 1, 0, 1, 0, 0), (1, 0), 0)
    assert not after.over and GAME.legal_moves(after, 0) == ["1l", "1r"]


def test_ethiopian_an_extra_turn_without_a_legal_move_passes_to_the_opponent():
    after = play(position((1, 0, 0, 0, 2, 0), (3, 0, 0, 0, 0, 0), variant=ETHIOPIAN), "5r")
    assert board(after) == ((1, 0, 0, 0, 0, 1), (3, 0, 0, 0, 0, 0), (1, 0), 1)


def test_ethiopian_when_neither_player_can_move_the_game_ends_and_tiles_are_banked():
    """[ours] Both stuck: each player banks the coins on his own tiles."""
    after = play(position((1, 0, 0, 0, 2, 0), (1, 1, 0, 0, 0, 0), (20, 23), variant=ETHIOPIAN), "5r")
    assert after.over
    assert after.tiles == ((0,) * 6, (0,) * 6)
    assert GAME.outcome(after) == Outcome(scores=(23, 25), winners=(1,))


# --- Nigerian ------------------------------------------------------------------------


def test_nigerian_players_must_drop_a_coin_into_the_opponents_mancala():
    after = play(position((0, 0, 1, 1, 1, 9), (0,) * 6, variant=NIGERIAN), "6")
    assert board(after) == ((1, 0, 1, 1, 1, 0), (1, 1, 1, 1, 1, 1), (1, 1), 1)


def test_nigerian_last_coin_in_a_mancala_ends_the_turn_without_a_move_again():
    after = play(position((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0), variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (1, 0, 0, 0, 0, 0), (1, 0), 1)
    assert not after.over, "the player to move still has coins"


def test_nigerian_last_coin_in_the_opponents_mancala_ends_the_turn():
    after = play(position((0, 0, 0, 0, 0, 8), (0,) * 6, variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (1, 1, 1, 1, 1, 1), (1, 1), 1)


def test_nigerian_last_coin_on_a_non_empty_tile_picks_it_up_and_continues():
    after = play(position((2, 0, 1, 0, 0, 0), (1, 0, 0, 0, 0, 0), variant=NIGERIAN), "1")
    assert board(after) == ((0, 1, 0, 1, 1, 0), (1, 0, 0, 0, 0, 0), (0, 0), 1)


def test_nigerian_relay_also_continues_from_a_tile_on_the_opponents_side():
    after = play(position((0, 0, 0, 0, 0, 2), (2, 0, 0, 0, 0, 0), variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (0, 1, 1, 1, 0, 0), (1, 0), 1)


def test_nigerian_relay_continues_from_a_tile_that_now_holds_five_or_more():
    after = play(position((1, 5, 0, 0, 0, 0), (0,) * 6, variant=NIGERIAN), "1")
    assert board(after) == ((0, 0, 1, 1, 1, 1), (1, 0, 0, 0, 0, 0), (1, 0), 1)


def test_nigerian_last_coin_in_an_empty_tile_ends_the_turn_without_a_capture():
    after = play(position((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 5, 0), variant=NIGERIAN), "1")
    assert board(after) == ((0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 5, 0), (0, 0), 1)


def test_nigerian_last_coin_making_four_banks_the_tile_and_ends_the_turn():
    after = play(position((1, 3, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0), variant=NIGERIAN), "1")
    assert board(after) == ((0,) * 6, (1, 0, 0, 0, 0, 0), (4, 0), 1)


def test_nigerian_a_tile_reaching_four_mid_sowing_is_banked_at_once():
    after = play(position((2, 3, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0), variant=NIGERIAN), "1")
    assert board(after) == ((0, 0, 1, 0, 0, 0), (1, 0, 0, 0, 0, 0), (4, 0), 1)


def test_nigerian_fourth_coin_goes_to_tile_owner_even_when_opponent_drops_it():
    """The text's example: Player 1 drops onto Player 2's tile of 3; Player 2 banks the 4."""
    after = play(position((0, 0, 0, 0, 0, 4), (0, 3, 0, 0, 0, 0), variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (1, 0, 1, 0, 0, 0), (1, 4), 1)


def test_nigerian_last_coin_making_four_on_the_opponents_tile_banks_it_for_him_and_ends_the_turn():
    after = play(position((0, 0, 0, 0, 0, 3), (0, 3, 0, 0, 0, 1), variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (1, 0, 0, 0, 0, 1), (1, 4), 1)


def test_nigerian_one_sowing_can_bank_fours_for_both_players():
    """The text: "Any time during a move that a tile has 4 coins, regardless of who dropped the
    fourth coin onto the tile, the player who owns that tile puts these coins into his own mancala"."""
    state = position((0, 0, 0, 4, 3, 0), (3, 0, 0, 0, 0, 1), variant=NIGERIAN)
    after = play(state, "4")
    assert board(after) == ((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1), (5, 4), 1)
    assert GAME.describe(state, 0, "4").endswith("banks 4 by the 4-coin rule and Player 2 banks 4 by the 4-coin rule.")


def test_nigerian_a_mancala_reaching_four_is_not_a_tile_and_stays():
    """The 4-coin rule speaks of tiles: a mancala that reaches 4 keeps its coins."""
    after = play(position((0, 0, 0, 0, 0, 2), (0, 0, 0, 0, 0, 1), (3, 0), variant=NIGERIAN), "6")
    assert board(after) == ((0,) * 6, (1, 0, 0, 0, 0, 1), (4, 0), 1)


def test_nigerian_a_tile_the_four_coin_rule_emptied_is_empty_when_the_last_coin_comes_back():
    """The turn is over on "an empty tile": tile 2 reached 4 with the first coin and was banked,
    so the 15th coin lands in an empty tile and does not relay."""
    after = play(position((15, 3, 0, 0, 0, 0), (0,) * 6, variant=NIGERIAN), "1")
    assert board(after) == ((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1), (5, 1), 1)


def test_nigerian_the_four_coins_of_the_setup_are_not_banked():
    """Only a drop that makes a tile reach 4 banks it; 4 + 1 = 5 relays."""
    after = play(GAME.initial_state(2, {"variant": NIGERIAN}, seed=1), "1")
    assert board(after) == ((1, 5, 5, 5, 0, 5), (5, 5, 0, 5, 5, 5), (1, 1), 1)


def test_nigerian_game_ends_when_the_player_to_move_has_no_coins_and_leftovers_do_not_count():
    after = play(position((2, 0, 0, 0, 0, 1), (0,) * 6, (20, 25), variant=NIGERIAN), "6")
    assert after.over
    assert after.tiles == ((2, 0, 0, 0, 0, 0), (0,) * 6), "leftovers stay on the tiles"
    assert GAME.outcome(after) == Outcome(scores=(21, 25), winners=(1,))


# --- Kalah ---------------------------------------------------------------------------


def test_kalah_captures_only_when_the_tile_across_holds_coins():
    after = play(position((2, 0, 0, 0, 0, 3), (1, 1, 1, 0, 1, 1), variant=KALAH), "1")
    assert board(after) == ((0, 1, 1, 0, 0, 3), (1, 1, 1, 0, 1, 1), (0, 0), 1)


def test_kalah_captures_a_non_empty_tile_across_like_egyptian():
    after = play(position((2, 0, 0, 0, 0, 3), (1, 1, 1, 5, 1, 1), variant=KALAH), "1")
    assert board(after) == ((0, 1, 0, 0, 0, 3), (1, 1, 1, 0, 1, 1), (6, 0), 1)


def test_kalah_moves_again_and_sweeps_like_egyptian():
    after = play(GAME.initial_state(2, {"variant": KALAH}, seed=1), "3")
    assert board(after) == ((4, 4, 0, 5, 5, 5), FULL, (1, 0), 0)
    ended = play(position((0, 0, 0, 0, 0, 1), (1, 2, 3, 0, 0, 0), (20, 21), variant=KALAH), "6")
    assert GAME.outcome(ended) == Outcome(scores=(21, 27), winners=(1,))


# --- Notation and messages -----------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "move", "message"),
    [
        (EGYPTIAN, "7", TILE_RANGE),
        (EGYPTIAN, "0", TILE_RANGE),
        (EGYPTIAN, "three", NAME_A_TILE),
        (EGYPTIAN, "3r", NO_DIRECTION_HERE.format(tile=3)),
        (ETHIOPIAN, "9l", TILE_RANGE),
        (ETHIOPIAN, "right", NAME_A_TILE_AND_DIRECTION),
        (ETHIOPIAN, "3x", UNKNOWN_DIRECTION),
        (EGYPTIAN, "\u0663", NAME_A_TILE),  # an Arabic-Indic 3: a number, but not one the notation is written in
    ],
)
def test_notation_errors_say_what_is_wrong(variant, move, message):
    state = GAME.initial_state(2, {"variant": variant}, seed=1)
    with pytest.raises(IllegalMove) as raised:
        GAME.apply(state, 0, move)
    assert str(raised.value) == message


# --- View, storage, move log ---------------------------------------------------------


def test_view_has_the_board_keys_and_never_the_seed():
    state = GAME.initial_state(2, {"variant": ETHIOPIAN}, seed=123_456_789)
    view = GAME.view(state, 0)
    assert view["tiles"] == [list(FULL), list(FULL)]
    assert view["mancalas"] == [0, 0]
    assert view["to_act"] == [0]
    assert view["variant"] == ETHIOPIAN
    assert view["legal_moves"] == GAME.legal_moves(state, 0)
    assert GAME.view(state, None)["legal_moves"] == []
    assert "123456789" not in json.dumps(GAME.view(state, None))


def test_view_of_a_finished_sweeping_game_shows_empty_tiles_and_the_winners():
    after = play(position((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1), (23, 23)), "6")
    view = GAME.view(after, 1)
    assert view["tiles"] == [[0] * 6, [0] * 6]
    assert view["over"] and view["to_act"] == [] and view["winners"] == [0, 1]


def test_dump_and_load_round_trip():
    state = play(GAME.initial_state(2, {"variant": NIGERIAN}, seed=99), "1", "2")
    dumped = GAME.dump(state)
    assert GAME.load(json.loads(json.dumps(dumped))) == state
    assert GAME.dump(GAME.load(dumped)) == dumped


def test_load_refuses_something_that_is_not_a_mancala_position():
    with pytest.raises(ValueError):
        GAME.load({"variant": "chess"})


@pytest.mark.parametrize(
    ("state", "move", "line"),
    [
        (GAME.initial_state(2, {}, 1), "3", "Player 1 sows tile 3: 4 coins and moves again."),
        (
            position((2, 0, 0, 0, 0, 3), (1, 1, 1, 5, 1, 1)),
            "1",
            "Player 1 sows tile 1: 2 coins and captures 6.",
        ),
        (
            position((0, 8, 0, 0, 0, 2), (1,) * 6, variant=ETHIOPIAN),
            "2l",
            "Player 1 sows tile 2 to the left: 8 coins and moves again.",
        ),
        (
            position((1, 0, 0, 0, 2, 0), (3, 0, 0, 0, 0, 0), variant=ETHIOPIAN),
            "5r",
            "Player 1 sows tile 5 to the right: 2 coins and ends in the mancala; Player 1 has no move and passes.",
        ),
        (
            position((1, 0, 0, 0, 2, 0), (1, 1, 0, 0, 0, 0), variant=ETHIOPIAN),
            "5r",
            "Player 1 sows tile 5 to the right: 2 coins and ends in the mancala; "
            "neither player can move, so the game ends; "
            "Player 1 banks the 2 coins left on their tiles and Player 2 the 2 left on theirs.",
        ),
        (
            position((0, 0, 0, 0, 0, 1), (1, 2, 3, 0, 0, 0)),
            "6",
            "Player 1 sows tile 6: 1 coin and ends in the mancala; the game ends; "
            "Player 2 banks the 6 coins left on their tiles.",
        ),
        (
            GAME.initial_state(2, {"variant": NIGERIAN}, 1),
            "1",
            "Player 1 sows tile 1: 4 coins and relays 2 times.",
        ),
        (
            position((0, 0, 0, 0, 0, 4), (0, 3, 0, 0, 0, 0), variant=NIGERIAN),
            "6",
            "Player 1 sows tile 6: 4 coins and Player 2 banks 4 by the 4-coin rule.",
        ),
        (
            position((1, 3, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0), variant=NIGERIAN),
            "1",
            "Player 1 sows tile 1: 1 coin and banks 4 by the 4-coin rule.",
        ),
        (
            position((1, 0, 0, 1, 1, 0), (0, 0, 0, 0, 0, 0), variant=NIGERIAN),
            "4",
            "Player 1 sows tile 4: 1 coin and relays once; Player 2 has no coin left on their tiles, so the game "
            "ends (2 coins on Player 1's tiles stay out of the count).",
        ),
        (
            position((0, 0, 0, 1, 0, 0), (0, 0, 0, 0, 0, 0), variant=NIGERIAN),
            "4",
            "Player 1 sows tile 4: 1 coin; Player 2 has no coin left on their tiles, so the game ends (1 coin on "
            "Player 1's tiles stays out of the count).",
        ),
    ],
)
def test_describe_tells_the_move_in_one_plain_line(state, move, line):
    assert GAME.describe(state, state.to_move, move) == line


def test_describe_refuses_an_illegal_move_with_the_players_message():
    with pytest.raises(IllegalMove, match=EMPTY_TILE):
        GAME.describe(position((0, 2, 0, 0, 0, 0), FULL), 0, "1")


# --- AI ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 2])
def test_ai_is_repeatable_for_the_same_inputs(level):
    state = GAME.initial_state(2, {"variant": KALAH}, seed=5)
    assert len({GAME.ai_move(state, 0, level, seed=11) for _ in range(3)}) == 1


def test_strong_ai_takes_a_capture_that_wins_the_game():
    state = position((0, 0, 1, 0, 0, 1), (0, 0, 9, 0, 0, 2), (18, 17))
    assert GAME.ai_move(state, 0, 2, seed=1) == "3"


def test_ai_refuses_an_unknown_level():
    with pytest.raises(ValueError):
        GAME.ai_move(GAME.initial_state(2, {}, 1), 0, 3, seed=1)


# --- Properties ----------------------------------------------------------------------

VARIANT = st.sampled_from(VARIANTS)
ROW = st.lists(st.integers(min_value=0, max_value=7), min_size=6, max_size=6)


@settings(max_examples=60, deadline=None)
@given(variant=VARIANT, rng=st.randoms(use_true_random=False))
def test_random_games_keep_48_coins_never_mutate_and_always_end(variant, rng: random.Random):
    state = GAME.initial_state(2, {"variant": variant}, seed=rng.randrange(2**32))
    for _ in range(GAME.playout_limit):
        if state.over:
            break
        seat = GAME.to_act(state)[0]
        moves = GAME.legal_moves(state, seat)
        assert moves, "a player asked to act always has a move"
        before = GAME.dump(state)
        state_after = GAME.apply(state, seat, rng.choice(moves))
        assert GAME.dump(state) == before
        assert GAME.conserved(state_after) == {"coins": 48}
        assert min(state_after.board) >= 0
        state = state_after
    assert state.over, "every game ends"
    outcome = GAME.outcome(state)
    assert outcome.scores == state.mancalas
    if variant in SWEEPING:
        assert state.tiles == ((0,) * 6, (0,) * 6)


@settings(max_examples=150, deadline=None)
@given(variant=VARIANT, p1=ROW, p2=ROW, seat=st.integers(0, 1))
def test_legal_moves_start_only_from_the_movers_non_empty_tiles(variant, p1, p2, seat):
    state = position(p1, p2, to_move=seat, variant=variant)
    least = 2 if variant == ETHIOPIAN else 1
    own = state.tiles[seat]
    for move in GAME.legal_moves(state, seat):
        assert own[int(move[0]) - 1] >= least
    assert GAME.legal_moves(state, 1 - seat) == []


@settings(max_examples=150, deadline=None)
@given(variant=VARIANT, p1=ROW, p2=ROW, seat=st.integers(0, 1))
def test_any_move_in_any_position_keeps_the_coins_and_the_ai_picks_a_legal_one(variant, p1, p2, seat):
    state = position(p1, p2, to_move=seat, variant=variant)
    moves = GAME.legal_moves(state, seat)
    coins = GAME.conserved(state)
    for move in moves:
        after = GAME.apply(state, seat, move)
        assert GAME.conserved(after) == coins
        assert min(after.board) >= 0
        assert GAME.load(GAME.dump(after)) == after
    if moves:
        assert GAME.ai_move(state, seat, 1, seed=3) in moves
