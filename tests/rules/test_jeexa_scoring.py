"""Jeexa's scoring by the hand's goal (docs/rules/jeexa.md, Scoring): the winner scores the goal and
20 points, everyone else (and everyone when the pile runs out) their best partial goal, so that in
hands 1 to 5 winning always pays most; and matches begun under the first reading (every joined piece)
keep it, replaying exactly as they were played."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from games.boards.jeexa import present
from games.engine.registry import get_game
from games.engine.words import plain
from games.rules.jeexa.goals import partial
from games.rules.jeexa.grid import grid_of
from games.rules.jeexa.rules import JOINED_PIECES, PARTIAL_GOAL
from tests.rules.test_jeexa import COLUMN, PAIR, column, position

GAME = get_game("jeexa")
STORED = Path(__file__).parent / "stored" / "jeexa_before_partial_goals.json"


def best(hand: int, pieces) -> tuple[int, set]:
    goal = partial(hand, grid_of(pieces))
    return goal.points, set(goal.cells)


def test_the_colour_hands_score_the_most_valuable_group_of_one_colour():
    """Hands 1, 2, 3 and 5: a group is pieces of one colour joined among themselves; one alone is a group."""
    sixes, twos, four = column(6, 0, 2), column(2, 0, 2, x=3), [(6, 0, 4, 0)]
    assert best(1, sixes + twos + four) == (12, {(0, 0), (0, -1)})
    assert best(2, COLUMN) == (6, {(0, -2)}), "a 2, a 3 and a 6 joined: three groups of one"
    assert best(3, [*column(3, 0, 3), (5, 0, 6, 0)]) == (9, {(0, 0), (0, -1), (0, -2)})
    assert best(5, column(4, 0, 4) + column(6, 0, 2, x=3)) == (16, {(0, 0), (0, -1), (0, -2), (0, -3)})


def test_the_staircase_hand_scores_the_most_valuable_path_of_consecutive_values():
    """Hand 4: each piece joined to the next, one value higher; a single piece is a path of one."""
    hub = [(0, 0, 3, 0), (0, -1, 2, 0), (1, 0, 4, 270), (0, 1, 1, 0)]  # the 1, 2 and 4 each joined to the 3
    assert best(4, hub) == (2 + 3 + 4, {(0, -1), (0, 0), (1, 0)}), "2-3-4: the 1 joins the 3, not the 2"
    assert best(4, [(0, 0, 6, 0), (3, 0, 1, 0)]) == (6, {(0, 0)})


def test_hand_six_scores_two_groups_up_to_four_and_three_pieces():
    fours, sixes = column(4, 0, 5), column(6, 0, 2, x=3)
    assert best(6, fours + sixes)[0] == 4 * 4 + 2 * 6, "the fours count 4 pieces of 5, the sixes their 2"
    points, cells = best(6, column(3, 0, 6))
    assert points == 4 * 3 and len(cells) == 4, "one group alone: up to 4 of its pieces"


def test_an_empty_puzzle_scores_nothing():
    assert best(3, []) == (0, set())


def test_a_dry_hand_scores_everyones_best_partial_goal_without_the_bonus():
    state = position(column(3, 0, 2), [*COLUMN, (6, 6, 1, 0)], piece=3, pile=(0,) * 6, hand=5)
    after = GAME.apply(state, 0, "0,-2,0")  # a third green on the two: a trio, no quintet
    assert after.last_hand.winner is None
    assert after.scores[-1] == (3 * 3, 6)
    assert [set(cells) for cells in after.last_hand.scored] == [{(0, 0), (0, -1), (0, -2)}, {(0, -2)}]


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (3, 4), (4, 5), (4, 6)])
def test_in_hands_one_to_five_the_winner_scores_more_than_anyone_else(players, seed):
    """At most the goal's size less one piece counts for anyone else: collecting never beats winning."""
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    checked = 0
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        before = state.hand
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        result = state.last_hand
        if state.hand != before and result is not None and result.winner is not None and result.hand <= 5:
            others = [points for number, points in enumerate(result.scores) if number != result.winner]
            assert result.scores[result.winner] > max(others), (result.hand, result.scores)
            checked += 1
    assert checked, "no hand of 1 to 5 was won: nothing was checked"


def test_a_new_game_scores_by_partial_goals():
    assert GAME.initial_state(2, {}, 1).scoring == PARTIAL_GOAL
    assert GAME.dump(GAME.initial_state(2, {}, 1))["scoring"] == PARTIAL_GOAL


def test_a_match_stored_before_the_partial_goals_keeps_its_scoring_and_replays_exactly():
    """A 3-player match played by the site before this reading, stored in hand 4: it loads, keeps the
    first reading (every joined piece) for the rest of the game, and its moves rebuild its stored
    state exactly, finished hands with the scores they had."""
    stored = json.loads(STORED.read_text())
    state = GAME.load(stored["state"])
    assert state.scoring == JOINED_PIECES and state.hand == 4
    replayed = GAME.initial_state_as_stored(stored["state"], stored["players"], {}, stored["seed"])
    for seat, move in stored["moves"]:
        replayed = GAME.apply(replayed, seat, move)
    again = GAME.dump(replayed)
    assert again["scoring"] == JOINED_PIECES
    kept_as_it_was = [key for key in stored["state"] if key not in ("last_hand", "events")]
    assert {key: again[key] for key in kept_as_it_was} == {key: stored["state"][key] for key in kept_as_it_was}
    assert [plain(event) for event in replayed.events] == stored["state"]["events"], "told in the same words"
    # The hand just finished keeps its result; it now also keeps every puzzle, which it did not then.
    assert {key: again["last_hand"][key] for key in ("hand", "winner", "scores")} == {
        key: stored["state"]["last_hand"][key] for key in ("hand", "winner", "scores")
    }
    rng = random.Random(1)
    while not GAME.is_over(state):  # and plays on to its end under the first reading
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    assert state.scoring == JOINED_PIECES and len(state.scores) == 6


def spot_label(state, move: str) -> str:
    """What the board says of the spot and turn ``move`` places the piece in hand on."""
    view = GAME.view(state, state.to_move)
    board = present(view, state.to_move, GAME.legal_moves(state, state.to_move))
    options = [o for row in board["focus"]["rows"] for cell in row for o in cell["options"]]
    return next(o["makes"] for o in options if o["move"] == move)


def test_a_spot_that_wins_the_hand_says_so_and_promises_no_joker():
    """Winning ends the hand, and the jokers the same placement would earn with it."""
    mine = [(0, 0, 2, 0), (1, -1, 6, 90)]  # a purple whose west slot faces 0,-1: a gap there
    state = position(mine, COLUMN, COLUMN, piece=2, hand=2)
    assert spot_label(state, "0,-1,0") == "1 join, completes the pair and wins the hand"
    assert spot_label(replace(state, hand=3), "0,-1,0") == "1 join, 1 joker", "no quartet: the joker stands"


def test_a_spot_earning_a_joker_nothing_can_be_taken_with_says_so():
    mine = [(0, 0, 2, 0), (1, -1, 6, 90)]
    state = position(mine, PAIR, piece=2, hand=3)  # taking either of a pair would leave the other loose
    assert spot_label(state, "0,-1,0") == "1 join, 1 joker, but no piece can be stolen"
