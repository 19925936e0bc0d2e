"""Jeexa scenarios, sentence by sentence from the rule text (as summarised in
docs/rules/jeexa.md) and our decisions (the decisions table of docs/rules/jeexa.md), plus
property tests over random games.

Puzzles are written as ``(x, y, value, rotation)``. Useful pieces, sides N E S W:
yellow 2 at 0° is ``+ 0 - 0`` (a column of them joins bottom to top), green 3 at 0° is
``+ + - 0``, yellow 2 at 90° is ``0 + 0 -``, purple 6 at 270° is ``+ - - +``, orange 5 at 0°
is ``+ - + -``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from hypothesis import given, settings
from hypothesis import strategies as st

from games.boards.jeexa import present
from games.engine import IllegalMove
from games.engine.registry import GAME_MODULES, get_game
from games.engine.rng import rng_for
from games.engine.words import plain
from games.rules.jeexa.goals import achieved
from games.rules.jeexa.grid import FREE_MARGIN, grid_of, links
from games.rules.jeexa.notation import BAD_ROTATION, UNREADABLE
from games.rules.jeexa.pieces import VALUES
from games.rules.jeexa.refusals import (
    CELL_TAKEN,
    FIRST_AT_ORIGIN,
    FLAT_ON_TAB,
    LEAVES_LOOSE,
    MUST_FIT,
    NO_JOKER,
    NO_PIECE_THERE,
    NOT_AN_END,
    SAME_LOOK,
    STEAL_FROM_YOURSELF,
    TAB_ON_FLAT,
    TAB_ON_TAB,
    TOO_FAR,
    USE_JOKER_FIRST,
)
from games.rules.jeexa.rules import DIE_SALT, State, full_pile

GAME_MODULES.setdefault("jeexa", "games.rules.jeexa")
GAME = get_game("jeexa")

# A chain of three (2 at the bottom, 3, 6 on top): both ends may be stolen, not the middle.
COLUMN = [(0, 0, 2, 0), (0, -1, 3, 0), (0, -2, 6, 0)]
PAIR = [(0, 0, 2, 0), (0, -1, 3, 0)]  # a chain of two: taking either would leave the other loose
# Seat 0: a yellow 2 with a slot-sided yellow 2 diagonally above: a purple 6 at 0,-1 turned
# 270° joins the first (slot on tab) and leaves two slots facing (one gap); the same pocket
# again at x=3 earns a joker for a second piece.
POCKETS = [(0, 0, 2, 0), (1, -1, 2, 90), (3, 0, 2, 0), (4, -1, 2, 90)]
# Four pieces joined in a ring and one more on it: only that last one is at an end.
RING_WITH_TAIL = [(0, -1, 1, 90), (1, -1, 3, 90), (2, -1, 1, 180), (0, 0, 1, 0), (1, 0, 1, 270)]
# Nothing fits a red 1 here (found by search): every open side is blocked for it.
CLOSED = [(-1, -1, 1, 90), (0, -1, 3, 90), (1, -1, 1, 180), (-1, 0, 1, 0), (0, 0, 1, 270)]


def position(*grids, piece=2, hand=5, to_move=0, jokers=0, pile=None, die=None, seed=7, moves=10, scores=None):
    """A running position; the pile holds what the puzzles and the hand do not, unless given."""
    players = len(grids)
    if pile is None:
        counts = list(full_pile(players))
        for grid in grids:
            for _x, _y, value, _r in grid:
                counts[value - 1] -= 1
        if piece:
            counts[piece - 1] -= 1
        pile = tuple(counts)
    return State(
        players=players,
        seed=seed,
        moves_played=moves,
        hand=hand,
        starter=0,
        to_move=to_move,
        die=die or piece or 1,
        piece=piece,
        stolen_from=None,
        jokers=jokers,
        pile=tuple(pile),
        grids=tuple(tuple(sorted(g, key=lambda p: (p[1], p[0]))) for g in grids),
        scores=tuple(scores or [(0,) * players] * (hand - 1)),
        last_hand=None,
        events=(),
    )


def said(state) -> list[str]:
    """What happened by itself after the last move, in the engine's words."""
    return [plain(event) for event in state.events]


def refused(state, move, seat=None):
    seat = state.to_move if seat is None else seat
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, seat, move)
    return str(error.value)


def cells(state, seat):
    return {(x, y): (v, r) for x, y, v, r in state.grids[seat]}


# --- Setup ---------------------------------------------------------------------------


def test_setup_one_set_up_to_four_players_two_sets_above():
    """'if there are more than 4, it's advisable to combine the pieces of 2 sets'"""
    assert GAME.conserved(GAME.initial_state(4, {}, 1)) == {"pieces": 60}
    assert GAME.conserved(GAME.initial_state(5, {}, 1)) == {"pieces": 120}
    assert GAME.view(GAME.initial_state(8, {}, 1), None)["sets"] == 2


def test_two_to_eight_players():
    """[code] The text sets no limit ('There's no limit of players'); two sets stop at 8."""
    for players in (1, 9):
        with pytest.raises(ValueError, match=r"^Jeexa is played by 2 to 8 players\.$"):
            GAME.initial_state(players, {}, 1)


def test_setup_seat_0_rolls_first_and_takes_that_piece_from_the_pile():
    state = GAME.initial_state(3, {}, seed=42)
    expected = rng_for(42, 0, DIE_SALT, 1, 0).randint(1, 6)
    assert GAME.to_act(state) == (0,)
    assert state.die == state.piece == expected
    assert state.pile[expected - 1] == 9
    view = GAME.view(state, 1)
    assert view["die"] == expected and view["hand_number"] == 1 and view["goal"].startswith("Trio")


def test_first_piece_of_a_hand_goes_at_the_origin_in_any_turn():
    state = position([], [], piece=3)
    assert GAME.legal_moves(state, 0) == ["0,0,0", "0,0,180", "0,0,270", "0,0,90"]
    assert refused(state, "2,1,0") == FIRST_AT_ORIGIN


def test_a_piece_that_looks_the_same_turned_is_offered_once():
    state = position([], [], piece=5)
    assert GAME.legal_moves(state, 0) == ["0,0,0", "0,0,90"]
    assert refused(state, "0,0,180") == SAME_LOOK.format(rotation=180, same=0)


def test_a_turn_that_looks_like_a_refused_one_is_refused_for_the_same_reason():
    """No "use 0" where 0 is refused too: 180 is the same piece, refused for the same tab."""
    state = position([(0, 0, 2, 0), (0, -1, 3, 0), (0, -2, 6, 0)], [(0, 0, 1, 0)], piece=5)
    assert "0,-3,0" not in GAME.legal_moves(state, 0) and "0,-3,90" in GAME.legal_moves(state, 0)
    assert refused(state, "0,-3,180") == refused(state, "0,-3,0") == TAB_ON_TAB.format(side="south", x=0, y=-2)


# --- Placing: 'you must do so by fitting the piece ... If this is not possible, and only if
# it is not possible, then you can place it as you see fit' ---------------------------------


def test_forced_fitting_only_joining_placements_are_offered():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert GAME.legal_moves(state, 0) == ["0,-1,0", "0,1,0"]
    assert GAME.view(state, 0)["placement_rule"] == "fit"


def test_forced_fitting_refuses_a_placement_that_joins_nothing():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert refused(state, "3,0,0") == MUST_FIT  # away from the puzzle
    assert refused(state, "1,0,0") == MUST_FIT  # flat against flat: touching is not fitting


def test_free_placement_only_when_nothing_fits():
    state = position(CLOSED, COLUMN, piece=1)
    legal = GAME.legal_moves(state, 0)
    assert GAME.view(state, 0)["placement_rule"] == "free"
    grid = grid_of(CLOSED)
    for move in legal:
        x, y, _rotation = map(int, move.split(","))
        assert (x, y) not in grid
        assert -1 - FREE_MARGIN <= x <= 1 + FREE_MARGIN and -1 - FREE_MARGIN <= y <= 0 + FREE_MARGIN
    assert "3,2,0" in legal  # the far corner of the allowed area
    assert refused(state, "4,0,0") == TOO_FAR.format(margin=FREE_MARGIN)
    after = GAME.apply(state, 0, "3,2,0")
    assert cells(after, 0)[(3, 2)] == (1, 0) and not links(grid_of(after.grids[0]))[(3, 2)]


def test_a_placed_piece_cannot_be_moved_or_covered():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert refused(state, "0,0,0") == CELL_TAKEN


def test_forbidden_contacts_a_tab_against_a_flat_side_is_refused_naming_whose_tab():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)  # yellow 2 at 0,0: tab north, slot south
    assert refused(state, "1,0,270") == TAB_ON_FLAT.format(side="west", x=0, y=0)  # onto the flat east side
    assert refused(state, "1,0,270") == "This piece's west tab would hit the flat side of the piece at 0,0."
    # Turned by 90° the new piece shows a flat south side to the tab of the piece below it.
    assert refused(state, "0,-1,90") == FLAT_ON_TAB.format(side="south", x=0, y=0)
    assert refused(state, "0,-1,90") == "The tab of the piece at 0,0 would hit this piece's flat south side."


def test_forbidden_contacts_a_tab_against_a_tab_is_refused():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert refused(state, "0,-1,180") == TAB_ON_TAB.format(side="south", x=0, y=0)  # on the north tab below


def test_notation_errors_are_readable():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert refused(state, "here") == UNREADABLE
    assert refused(state, "0,-1,\u0661\u0668\u0660") == UNREADABLE, "Arabic-Indic 180: not how a move is written"
    assert refused(state, "steal \u0661 0,0") == UNREADABLE
    assert refused(state, "0,-1,45") == BAD_ROTATION
    assert refused(state, "steal 1 0,0") == NO_JOKER
    with pytest.raises(IllegalMove):
        GAME.apply(state, 1, "0,-1,0")  # not seat 1's turn


def test_white_space_and_letter_case_are_forgiven():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2)
    assert GAME.apply(state, 0, "  0,-1,0 ") == GAME.apply(state, 0, "0,-1,0")


# --- Jokers ----------------------------------------------------------------------------


def test_one_joker_for_two_opposing_gaps():
    """'Two opposing gaps are considered as one joker, not two'"""
    state = position(POCKETS, COLUMN, COLUMN, piece=6)
    after = GAME.apply(state, 0, "0,-1,270")  # joins the 2 below, slot faces slot on the east
    assert after.to_move == 0 and after.jokers == 1 and after.piece == 0
    assert "1 joker" in GAME.describe(state, 0, "0,-1,270")


def test_a_neighbours_slot_against_the_new_flat_side_is_a_gap_too():
    """'When a player manages to leave a gap between two pieces ..., he gets a joker': the
    slot may be the neighbour's, facing a flat side of the piece just placed."""
    mine = [(0, 0, 2, 0), (1, -1, 2, 90)]  # the yellow 2 at 1,-1 shows its west slot to 0,-1
    state = position(mine, COLUMN, COLUMN, piece=2)
    after = GAME.apply(state, 0, "0,-1,0")  # joins the 2 below; its flat east side faces that slot
    assert after.jokers == 1 and after.to_move == 0
    assert GAME.describe(state, 0, "0,-1,0").endswith("turned 0°: 1 join, 1 joker.")


def test_two_jokers_for_two_gaps():
    """'when you place the piece you manage to leave two holes ... you get two jokers'"""
    mine = [(0, 0, 2, 0), (1, 1, 2, 0), (-1, 1, 2, 0)]  # flat sides on both sides of 0,1
    state = position(mine, COLUMN, COLUMN, piece=5)
    after = GAME.apply(state, 0, "0,1,0")  # orange: tab up into the slot, slots east and west
    assert after.jokers == 2
    assert "2 jokers" in GAME.describe(state, 0, "0,1,0")


def test_a_joker_steals_an_end_piece_which_is_placed_in_the_same_turn():
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6), 0, "0,-1,270")
    assert GAME.legal_moves(state, 0) == ["steal 1 0,-2", "steal 1 0,0", "steal 2 0,-2", "steal 2 0,0"]
    assert refused(state, "1,1,0") == USE_JOKER_FIRST
    after = GAME.apply(state, 0, "steal 1 0,-2")
    assert after.to_move == 0 and after.piece == 6 and after.stolen_from == 1 and after.jokers == 0
    assert (0, -2) not in cells(after, 1)
    assert GAME.view(after, 2)["stolen_from"] == 1
    assert GAME.describe(state, 0, "steal 1 0,-2").startswith("Player 1 uses a joker: steals the purple 6 at 0,-2")


def test_chained_jokers_a_stolen_piece_that_leaves_a_gap_earns_another():
    """'If, when you take the partner's piece and place it, you get another joker, you can
    steal a piece from a partner again, and so on'"""
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6), 0, "0,-1,270")
    state = GAME.apply(state, 0, "steal 1 0,-2")
    state = GAME.apply(state, 0, "3,-1,270")  # the stolen 6 fills the second pocket
    assert state.to_move == 0 and state.jokers == 1
    # Player 2's chain is down to two pieces: only Player 3's ends remain.
    assert GAME.legal_moves(state, 0) == ["steal 2 0,-2", "steal 2 0,0"]
    state = GAME.apply(state, 0, "steal 2 0,0")
    assert state.piece == 2 and state.to_move == 0


def test_a_stolen_piece_that_completes_the_goal_wins_the_hand():
    """'you can steal a piece from a partner again, and so on, as long as you get jokers, or
    win the hand': the goal is checked after a stolen piece is placed too."""
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6, hand=2), 0, "0,-1,270")
    state = GAME.apply(state, 0, "steal 1 0,-2")  # Player 2's purple 6
    after = GAME.apply(state, 0, "0,-2,0")  # on the purple 6 placed this turn: a pair
    assert after.last_hand.winner == 0 and set(after.last_hand.scored[0]) == {(0, -2), (0, -1)}
    assert after.scores[-1] == (6 + 6 + 20, 3, 6)  # each other player's best group: Player 2 lost the 6
    assert after.hand == 3 and after.starter == 0 and after.to_move == 0
    assert said(after)[0] == "Player 1 completes the pair and wins hand 2: 32 points"


def test_completing_the_goal_is_not_forced_while_the_piece_fits_elsewhere():
    """The fitting rule is the only constraint: a fit that completes the pair and one that
    does not are both offered, and the second lets the hand go on."""
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6, hand=2), 0, "0,-1,270")
    state = GAME.apply(state, 0, "steal 1 0,-2")
    assert {"0,-2,0", "3,-1,270"} <= set(GAME.legal_moves(state, 0))
    after = GAME.apply(state, 0, "3,-1,270")  # into the second pocket: joins a yellow 2 only
    assert after.hand == 2 and after.last_hand is None and after.to_move == 0 and after.jokers == 1


def test_a_steal_that_would_leave_a_loose_piece_is_refused():
    state = GAME.apply(position(POCKETS, PAIR, COLUMN, piece=6), 0, "0,-1,270")
    assert refused(state, "steal 1 0,0") == LEAVES_LOOSE
    assert refused(state, "steal 1 0,-1") == LEAVES_LOOSE


def test_a_steal_of_a_piece_not_at_an_end_is_refused():
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6), 0, "0,-1,270")
    assert refused(state, "steal 1 0,-1") == NOT_AN_END  # the middle of a chain
    assert refused(state, "steal 0 0,0") == STEAL_FROM_YOURSELF
    assert refused(state, "steal 1 5,5") == NO_PIECE_THERE.format(x=5, y=5, whose="Player 2's")


def test_a_single_possible_steal_is_taken_without_asking():
    """A step with nothing to choose is taken by itself; placing the stolen piece is asked."""
    state = position(POCKETS, RING_WITH_TAIL, PAIR, piece=6)
    after = GAME.apply(state, 0, "0,-1,270")
    assert after.to_move == 0 and after.piece == 1 and after.stolen_from == 1 and after.jokers == 0
    assert said(after) == ["Player 1 steals the red 1 at 2,-1 from Player 2, the only piece that can be taken"]
    assert (2, -1) not in cells(after, 1)


def test_a_joker_with_no_target_is_lost():
    state = position(POCKETS, PAIR, PAIR, piece=6)
    after = GAME.apply(state, 0, "0,-1,270")
    assert after.jokers == 0 and after.to_move == 1
    assert said(after)[0] == "1 joker lost: no piece can be stolen"
    assert GAME.describe(state, 0, "0,-1,270").startswith(
        "Player 1 rolled 6 and places a purple 6 at 0,-1 turned 270°: 1 join, 1 joker. 1 joker lost"
    )


# --- The pile ------------------------------------------------------------------------------


def _seed_rolling_other_than(value, moves, hand):
    return next(s for s in range(1000) if rng_for(s, moves, DIE_SALT, hand, 0).randint(1, 6) != value)


def test_a_turn_is_lost_when_the_rolled_value_is_gone_from_the_pile():
    """'If a player cannot pick up a piece indicated by the dice ... loses his turn'"""
    pile = (0, 0, 0, 0, 0, 1)  # only one purple 6 left
    seed = _seed_rolling_other_than(6, 11, 5)
    missed = rng_for(seed, 11, DIE_SALT, 5, 0).randint(1, 6)
    state = position([(0, 0, 2, 0)], COLUMN, COLUMN, piece=2, pile=pile, seed=seed)
    after = GAME.apply(state, 0, "0,-1,0")
    assert said(after)[0] == f"Player 2 rolled {missed}: none left, turn lost"
    assert after.die == after.piece == 6 and after.pile == (0,) * 6
    assert said(after)[-1] == f"Player {after.to_move + 1} rolled 6"
    assert all(event.endswith("none left, turn lost") for event in said(after)[:-1])


def test_a_hand_that_runs_out_of_pieces_scores_everyones_best_partial_goal_without_bonus():
    """'If a hand runs out of pieces on the pile without a winner, each player's points are
    scored without any bonus of 20 points': each scores their best partial goal (our reading of
    "linked pieces": linked toward what the hand asks)."""
    loose = (6, 6, 1, 0)
    state = position([(0, 0, 2, 0)], [*COLUMN, loose], piece=2, pile=(0,) * 6, hand=3)
    after = GAME.apply(state, 0, "0,1,0")  # a 2 under the 2: linked, but no quartet
    assert after.last_hand.winner is None
    assert after.scores[-1] == (2 + 2, 6)  # a quartet's partial goal: the most valuable group of one colour
    assert after.hand == 4 and after.starter == 1 and after.to_move == 1  # who could not draw starts
    assert "The pile is empty: hand 3 ends without a winner" in said(after)


def test_jokers_in_hand_are_used_before_an_empty_pile_ends_the_hand():
    """The pile is empty, but a joker needs no pile: the turn goes on with the steal and
    its placement, and only then does the hand end without a winner."""
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6, pile=(0,) * 6), 0, "0,-1,270")
    assert state.hand == 5 and state.to_move == 0 and state.jokers == 1 and state.stealing
    state = GAME.apply(state, 0, "steal 1 0,0")  # Player 2's yellow 2
    after = GAME.apply(state, 0, "0,1,0")  # under the first yellow 2: joined, no quintet
    assert after.last_hand.winner is None and after.hand == 6
    assert said(after)[0] == "The pile is empty: hand 5 ends without a winner"
    assert after.starter == 1  # the next player, who could not draw


# --- Goals: one per hand --------------------------------------------------------------------


def column(value, rotation, n, x=0):
    return [(x, -i, value, rotation) for i in range(n)]


def test_hand_1_trio_three_pieces_of_one_colour_joined():
    assert achieved(1, grid_of(column(2, 0, 3))).points == 6
    assert achieved(1, grid_of(column(2, 0, 2))) is None


def test_hand_1_trio_pieces_joined_through_another_colour_do_not_count():
    grid = grid_of([(0, 0, 2, 0), (0, -1, 3, 0), (0, -2, 2, 0), (5, 0, 2, 0)])
    assert achieved(1, grid) is None
    assert achieved(2, grid) is None


def test_hand_2_pair_two_pieces_of_one_colour_joined():
    assert achieved(2, grid_of(column(3, 0, 2))).points == 6
    side_by_side = grid_of([(0, 0, 2, 0), (1, 0, 2, 0)])  # flat against flat: touching, not joined
    assert achieved(2, side_by_side) is None


def test_hand_3_quartet_four_equal_pieces_joined():
    assert achieved(3, grid_of(column(3, 0, 4))).points == 12
    assert achieved(3, grid_of(column(3, 0, 3))) is None


def test_hand_4_staircase_a_path_of_consecutive_values():
    stairs = grid_of([(0, 0, 1, 0), (0, -1, 2, 0), (0, -2, 3, 0), (0, -3, 4, 180)])
    goal = achieved(4, stairs)
    assert goal.points == 10 and set(goal.cells) == set(stairs)


def test_hand_4_four_consecutive_values_that_are_not_a_path_do_not_count():
    """'somehow it must be possible to follow the path without interrupting the sequence'"""
    hub = grid_of([(0, 0, 3, 0), (0, -1, 2, 0), (1, 0, 4, 270), (0, 1, 1, 0)])  # 1, 2, 4 all joined to the 3
    assert all(len(links(hub)[cell]) == 1 for cell in hub if cell != (0, 0))
    assert achieved(4, hub) is None


def test_hand_5_quintet_five_equal_pieces_joined():
    assert achieved(5, grid_of(column(3, 0, 5))).points == 15
    assert achieved(5, grid_of(column(3, 0, 4))) is None


def test_hand_6_a_quartet_and_a_separate_trio():
    both = grid_of(column(3, 0, 4) + column(2, 0, 3, x=3))
    assert achieved(6, both).points == 4 * 3 + 3 * 2
    assert achieved(6, grid_of(column(3, 0, 4))) is None
    same_colour = grid_of(column(3, 0, 4) + column(3, 0, 3, x=3))  # [ours] the trio may be of that colour too
    assert achieved(6, same_colour).points == 7 * 3


def test_hand_6_the_quartet_and_the_trio_share_no_piece():
    assert achieved(6, grid_of(column(3, 0, 6))) is None  # six cannot be a four and a three
    assert achieved(6, grid_of(column(3, 0, 7))).points == 21


def test_the_winner_scores_the_highest_set_that_meets_the_goal():
    grid = grid_of(column(2, 0, 3) + column(3, 0, 5, x=3))
    assert achieved(1, grid).points == 9  # three greens, not three yellows; and three, not five


# --- Scoring and hands -------------------------------------------------------------------------


def test_scoring_winner_goal_pieces_plus_20_others_their_best_partial_goal():
    """'The player who wins the hand, adds up the points of the pieces with which he has done
    what the hand determines him, plus a bonus for winning of 20 points. The rest of the
    players score only the points of the linked pieces': linked toward the hand's goal, their
    best partial goal (docs/rules/jeexa.md, Scoring)."""
    loose = (6, 6, 1, 0)
    state = position([(0, 0, 2, 0), (4, 4, 6, 0)], [*COLUMN, loose], piece=2, hand=2)
    after = GAME.apply(state, 0, "0,-1,0")
    assert after.last_hand.winner == 0 and set(after.last_hand.scored[0]) == {(0, 0), (0, -1)}
    assert after.scores[-1] == (2 + 2 + 20, 6)  # a pair's partial goal: the most valuable single piece
    assert after.last_hand.scored[1] == ((0, -2),), "the purple 6 Player 2 scored"
    assert "Player 1 completes the pair and wins hand 2: 24 points" in said(after)


def test_the_winner_of_a_hand_starts_the_next_with_every_piece_back_on_the_pile():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2, hand=2, to_move=0)
    state = replace(state, starter=1)
    after = GAME.apply(state, 0, "0,-1,0")
    assert after.hand == 3 and after.starter == 0 and after.to_move == 0
    assert after.grids == ((), ()) and sum(after.pile) == 59 and after.piece == after.die
    assert GAME.view(after, 1)["last_hand"]["winner"] == 0


def test_a_win_ends_the_hand_at_once_and_pending_jokers_are_lost():
    mine = [(0, 0, 2, 0), (1, -1, 6, 90)]  # a purple whose west slot faces 0,-1
    state = position(mine, COLUMN, COLUMN, piece=2, hand=2)
    after = GAME.apply(state, 0, "0,-1,0")  # the pair is made and a gap too
    assert after.last_hand.winner == 0 and after.jokers == 0 and after.hand == 3


def test_six_hands_then_the_final_score_table_and_shared_wins():
    """'The sum of the points obtained in the six hands will determine the winner'"""
    earlier = [(10, 10), (0, 24), (24, 0), (5, 5), (7, 7)]
    state = position([(0, 0, 2, 0)], PAIR, piece=2, pile=(0,) * 6, hand=6, scores=earlier)
    after = GAME.apply(state, 0, "0,1,0")
    assert GAME.is_over(after) and GAME.to_act(after) == ()
    assert after.scores[-1] == (4, 5)
    outcome = GAME.outcome(after)
    assert outcome.scores == (50, 51) and outcome.winners == (1,)
    tied = position([(0, 0, 2, 0)], PAIR, piece=2, pile=(0,) * 6, hand=6, scores=[(1, 0), *earlier[1:]])
    assert GAME.outcome(GAME.apply(tied, 0, "0,1,0")).winners == (0, 1)
    view = GAME.view(after, None)
    assert len(view["scores"]) == 6 and view["totals"] == [50, 51] and view["over"]


def test_the_finished_board_names_shared_winners_as_a_sentence():
    earlier = [(1, 0), (0, 24), (24, 0), (5, 5), (7, 7)]
    tied = position([(0, 0, 2, 0)], PAIR, piece=2, pile=(0,) * 6, hand=6, scores=earlier)
    over = GAME.apply(tied, 0, "0,1,0")
    html = " ".join(render_board(over, None).split())
    assert re.search(r"<span[^>]*>Player 1</span> and <span[^>]*>Player 2</span> share the win\.", html)
    named = " ".join(render_board(over, None, names={0: "Alice", 1: "Bob"}).split())
    assert re.search(r"<span[^>]*>Alice</span> and <span[^>]*>Bob</span> share the win\.", named)


def render_board(state, seat: int | None, names: dict[int, str] | None = None) -> str:
    view = GAME.view(state, seat)
    match = SimpleNamespace(pk=1, version=0)  # the template's forms post to it
    return render_to_string(
        "games/boards/jeexa.html", {"view": view, "board": present(view, seat, []), "match": match, "names": names}
    )


def test_a_whole_game_has_six_hands():
    state = GAME.initial_state(3, {}, seed=5)
    rng = random.Random(5)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    assert len(state.scores) == 6 and all(len(row) == 3 for row in state.scores)
    assert GAME.outcome(state).scores == tuple(sum(row[s] for row in state.scores) for s in range(3))


# --- The die: 'every random outcome derives from the seed and the number of moves played' ------


def _random_game(players, seed, limit=None):
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    moves, states = [], [state]
    while not GAME.is_over(state) and (limit is None or len(moves) < limit):
        seat = GAME.to_act(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        moves.append((seat, move))
        state = GAME.apply(state, seat, move)
        states.append(state)
    return moves, states


def test_the_die_replays_exactly_from_the_seed_and_the_moves():
    moves, states = _random_game(4, 99, limit=120)
    replayed = GAME.initial_state(4, {}, 99)
    for (seat, move), expected in zip(moves, states[1:], strict=True):
        replayed = GAME.apply(replayed, seat, move)
        assert (replayed.die, replayed.events) == (expected.die, expected.events)
    assert len({GAME.initial_state(4, {}, seed).die for seed in range(30)}) > 1  # the seed decides


def test_the_die_of_a_turn_comes_from_the_seed_and_the_moves_played():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2, seed=1234, moves=17)
    after = GAME.apply(state, 0, "0,-1,0")
    rolled = rng_for(1234, 18, DIE_SALT, 5, 0).randint(1, 6)
    assert said(after)[0].startswith(f"Player 2 rolled {rolled}")
    # The board names the player the event speaks of, as the seat list does.
    html = render_board(after, 0, names={0: "Alice", 1: "Bob"})
    assert re.search(rf'class="jx-events"[^>]*><li>Bob rolled {rolled}', html)


def test_the_log_has_one_line_per_move_the_next_roll_opening_the_next_line():
    """The roll that begins a turn is said by that turn's placement ("Player 2 rolled 5 and
    places..."), not appended to the line of the move before (twice said, the wrong line)."""
    state = position([(0, 0, 2, 0)], COLUMN, piece=2, seed=1234, moves=17)
    line = GAME.describe(state, 0, "0,-1,0")
    assert line == "Player 1 rolled 2 and places a yellow 2 at 0,-1 turned 0°: 1 join."
    moves, states = _random_game(3, 5)
    assert states[-1].hand > 2, "hands were won"
    log = []
    for (seat, move), before in zip(moves, states, strict=False):
        log.append(GAME.describe(before, seat, move))
        assert not re.search(r"rolled \d\.$", log[-1]), log[-1]
        if before.stolen_from is None and not move.startswith("steal "):
            assert log[-1].startswith(f"Player {seat + 1} rolled {before.die} and places"), log[-1]
    rolls = sum(" rolled " in event for state in states for event in said(state))
    assert sum(line.count(" rolled ") for line in log) == rolls, "each roll said once"


def test_a_turn_lost_stays_on_the_line_of_the_move_before_it():
    pile = (0, 0, 0, 0, 0, 1)  # only one purple 6 left: the next roll of another value is lost
    seed = _seed_rolling_other_than(6, 11, 5)
    state = position([(0, 0, 2, 0)], COLUMN, COLUMN, piece=2, pile=pile, seed=seed)
    line = GAME.describe(state, 0, "0,-1,0")
    assert "none left, turn lost" in line
    assert not line.endswith("rolled 6."), "the roll that found a piece opens the next line"


def test_views_show_the_roll_under_way_and_nothing_of_the_next():
    state = position([(0, 0, 2, 0)], COLUMN, piece=2, seed=1234)
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        assert view["die"] == 2 and "seed" not in view
        assert "1234" not in json.dumps(view)
    assert GAME.secrets(state, 0) == []


# --- Properties over random games -------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 2**40))
def test_property_pieces_are_conserved_and_every_game_ends(players, seed):
    total = 60 if players <= 4 else 120
    _moves, states = _random_game(players, seed)
    assert GAME.is_over(states[-1]) and len(states) - 1 <= GAME.playout_limit
    for state in states:
        assert GAME.conserved(state) == {"pieces": total}
        in_grids = sum(len(grid) for grid in state.grids)
        assert sum(state.pile) + in_grids + (1 if state.piece else 0) == total


@settings(max_examples=8, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(10**11, 10**12))
def test_property_views_never_contain_the_seed(players, seed):
    _moves, states = _random_game(players, seed, limit=150)
    for state in states[::5]:
        for viewer in (None, *range(players)):
            assert str(seed) not in json.dumps(GAME.view(state, viewer))


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_property_json_round_trip_is_exact(players, seed, steps):
    _moves, states = _random_game(players, seed, limit=steps)
    state = states[-1]
    data = GAME.dump(state)
    assert GAME.load(json.loads(json.dumps(data))) == state
    assert GAME.dump(GAME.load(data)) == data


def test_every_value_has_ten_pieces_per_set():
    assert full_pile(2) == (10,) * len(VALUES) and full_pile(6) == (20,) * len(VALUES)


# --- The board ---------------------------------------------------------------------------------


def _buttons(board):
    """Every move the board offers as a button."""
    moves = []
    for pz in [board["focus"], *board["others"]]:
        for row in pz["rows"]:
            for cell in row:
                moves += [option["move"] for option in cell["options"]]
                if cell["piece"] and cell["piece"]["steal"]:
                    moves.append(cell["piece"]["steal"])
    return sorted(moves)


@pytest.mark.parametrize("steps", [0, 9, 40, 90])
def test_the_board_offers_exactly_the_legal_moves_as_buttons(steps):
    _moves, states = _random_game(4, 21, limit=steps)
    state = states[-1]
    seat = GAME.to_act(state)[0]
    legal = GAME.legal_moves(state, seat)
    board = present(GAME.view(state, seat), seat, legal)
    assert _buttons(board) == legal
    assert board["goal"] == GAME.view(state, seat)["goal"] and board["die"] == state.die
    assert _buttons(present(GAME.view(state, None), None, [])) == []


def test_the_board_offers_steals_on_the_other_puzzles():
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6), 0, "0,-1,270")
    legal = GAME.legal_moves(state, 0)
    board = present(GAME.view(state, 0), 0, legal)
    assert board["stealing"] and _buttons(board) == legal
    assert [p["has_targets"] for p in board["others"]] == [True, True]
