"""Jeexa's computer players (docs/rules/jeexa.md, AI levels): Strong plays for the hand's goal,
completing it whenever it can, building towards it otherwise, and spending its jokers on what
stands nearest the goal in the others' puzzles; both levels play legal moves, repeatable from
their seed and blind to the game's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.jeexa_ai import play
from games.engine.registry import get_game
from games.rules.jeexa.appraisal import Appraiser
from games.rules.jeexa.goals import achieved, components
from games.rules.jeexa.grid import fitting, grid_of, placed, placements
from games.rules.jeexa.pieces import VALUES
from tests.rules.test_jeexa import COLUMN, PAIR, POCKETS, _random_game, column, position

GAME = get_game("jeexa")
EASY, STRONG = 1, 2


def completes(state, seat, move) -> bool:
    after = GAME.apply(state, seat, move)
    return len(after.scores) > len(state.scores) and after.last_hand.winner == seat


def completing_moves(state, seat) -> set[str]:
    return {move for move in GAME.legal_moves(state, seat) if "steal" not in move and completes(state, seat, move)}


# --- Strong completes the goal ---------------------------------------------------------------


def test_strong_completes_the_pair_when_the_piece_in_hand_makes_one():
    """Hand 2: its purple 6 on top of the 6 in hand makes a pair; most fits do not."""
    state = position(COLUMN, COLUMN, piece=6, hand=2)
    winning = completing_moves(state, 0)
    assert winning and len(winning) < len(GAME.legal_moves(state, 0))
    for seed in range(5):
        assert GAME.ai_move(state, 0, STRONG, seed=seed) in winning


def test_strong_takes_every_move_that_completes_the_goal_in_whole_games():
    """Over random games of every size, whatever the hand: whenever a placement completes the goal,
    Strong's move is one of them."""
    checked = set()
    for players, seed in [(2, 31), (3, 32), (4, 33), (6, 34)]:
        _moves, states = _random_game(players, seed)
        for state in states:
            if GAME.is_over(state) or state.stealing:
                continue
            seat = GAME.to_act(state)[0]
            grid = grid_of(state.grids[seat])
            options, _rule = placements(grid, state.piece)
            if any(achieved(state.hand, placed(grid, (x, y), state.piece, r)) for x, y, r in options):
                assert completes(state, seat, GAME.ai_move(state, seat, STRONG, seed=seed)), (players, seed, state)
                checked.add(state.hand)
    assert len(checked) >= 4, checked  # the positions met cover most of the six goals


def test_strong_steals_the_piece_that_completes_its_goal_and_places_it_to_win():
    """Hand 2: after its 6 earned a joker, the purple 6 on top of either column makes a pair with it."""
    state = GAME.apply(position(POCKETS, COLUMN, COLUMN, piece=6, hand=2), 0, "0,-1,270")
    assert state.stealing
    theft = GAME.ai_move(state, 0, STRONG, seed=4)
    assert theft in ("steal 1 0,-2", "steal 2 0,-2")  # the 6s; the 2s complete nothing
    state = GAME.apply(state, 0, theft)
    assert completes(state, 0, GAME.ai_move(state, 0, STRONG, seed=4))


# --- Strong builds towards the goal ----------------------------------------------------------


def test_strong_grows_its_group_towards_the_quartet_rather_than_earn_a_joker_for_nothing():
    """Hand 3 (quartet): a third green 3 joined to its two, where Easy takes the fit that earns a
    joker (the opponent's two pieces cannot be stolen: it would be lost)."""
    mine = [(0, 0, 5, 0), (-1, 1, 3, 90), (0, 1, 4, 270), (-1, 2, 3, 180)]  # the 3s at -1,1 and -1,2 joined
    state = position(mine, PAIR, piece=3, hand=3)
    grown = {move for move in GAME.legal_moves(state, 0) if _group_after(state, move) == 3}
    assert grown == {"-1,3,180", "-2,1,0", "-2,1,90", "-2,2,270"}
    assert GAME.ai_move(state, 0, EASY, seed=0) == "-1,0,0"  # one join and one gap: the beginner's pick
    for seed in range(3):
        assert GAME.ai_move(state, 0, STRONG, seed=seed) in grown


def _group_after(state, move) -> int:
    grid = grid_of(GAME.apply(state, 0, move).grids[0])
    return max(len(cells) for value, cells in components(grid) if value == 3)


# --- Strong's thefts -------------------------------------------------------------------------


def test_strong_steals_from_the_player_nearest_the_goal_a_piece_of_his_best_group():
    """Hand 3 (quartet): Player 2 has three green 3s joined, one short; Player 3, ahead in the game,
    has a green 3 at the end of a chain of other colours. The same piece for the thief either way:
    Strong takes it from the group that is nearly a quartet."""
    state = position(
        [(0, 0, 1, 0)],
        column(3, 0, 3),  # 3s at 0,0, 0,-1 and 0,-2: both ends may be stolen
        [(0, 0, 2, 0), (0, -1, 6, 0), (0, -2, 3, 0)],  # a 2, a 6, a 3 on top: the 2 and the 3 may be stolen
        piece=0,
        jokers=1,
        hand=3,
        scores=[(10, 12, 30), (10, 12, 15)],
    )
    assert set(GAME.legal_moves(state, 0)) == {"steal 1 0,0", "steal 1 0,-2", "steal 2 0,0", "steal 2 0,-2"}
    for seed in range(5):
        assert GAME.ai_move(state, 0, STRONG, seed=seed) in ("steal 1 0,0", "steal 1 0,-2")


def test_strong_breaks_the_group_of_a_player_one_piece_from_the_goal_rather_than_take_a_richer_piece():
    """Two players, hand 5 (quintet): the opponent's four green 3s are joined, a purple 6 on top. The
    6 is worth more to the thief; a 3 from the bottom stops a hand the opponent is one piece from
    winning."""
    theirs = [*column(3, 0, 4), (0, -4, 6, 0)]  # both ends may be stolen: the 3 at 0,0, the 6 at 0,-4
    state = position([(0, 0, 1, 0)], theirs, piece=0, jokers=1, hand=5)
    assert set(GAME.legal_moves(state, 0)) == {"steal 1 0,0", "steal 1 0,-4"}
    for seed in range(3):
        assert GAME.ai_move(state, 0, STRONG, seed=seed) == "steal 1 0,0"


# --- What a puzzle offers ---------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), [(2, 41), (4, 42), (5, 43)])
def test_the_reading_knows_which_values_complete_the_goal_at_once(players, seed):
    """Jokers are valued by the pieces they can steal: a piece that completes the goal must be seen
    as one, in every hand (checked against goals.achieved on every fitting placement)."""
    _moves, states = _random_game(players, seed)
    seen = set()
    for state in states[::3]:
        if GAME.is_over(state):
            continue
        reader = Appraiser(state.hand, state.players, state.pile)
        for pieces in state.grids:
            grid = grid_of(pieces)
            if not grid:
                continue
            reading = reader.read(grid)
            for value in VALUES:
                exact = any(achieved(state.hand, placed(grid, (x, y), value, r)) for x, y, r in fitting(grid, value))
                assert reading.completes[value - 1] == exact, (state.hand, pieces, value)
                seen.add((state.hand, exact))
    assert {exact for _hand, exact in seen} == {True, False}


# --- Both levels -------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [EASY, STRONG])
def test_the_ai_is_repeatable_legal_and_blind_to_the_seed(level):
    _moves, states = _random_game(3, 8, limit=60)
    for state in states[::7]:
        seat = GAME.to_act(state)[0]
        move = GAME.ai_move(state, seat, level, seed=3)
        assert move in GAME.legal_moves(state, seat)
        assert GAME.ai_move(state, seat, level, seed=3) == move
        # Another game seed means other future rolls: the AI must not notice.
        assert GAME.ai_move(replace(state, seed=state.seed + 1), seat, level, seed=3) == move


@pytest.mark.parametrize("level", [EASY, STRONG])
def test_a_whole_game_between_ais_is_legal_and_repeatable_from_its_seed(level):
    """Every hand, thefts included: asked again, the AI gives the same move in the same position,
    whatever the game's seed (the rolls to come)."""
    state = GAME.initial_state(2, {}, 5)
    played = []
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        move = GAME.ai_move(state, seat, level, seed=9)
        assert move in GAME.legal_moves(state, seat)
        played.append((state, seat, move))
        state = GAME.apply(state, seat, move)
    assert {len(row) for row in state.scores} == {2} and len(state.scores) == 6
    assert any(move.startswith("steal") for _state, _seat, move in played)
    steals = [turn for turn in played if turn[2].startswith("steal")]
    for before, seat, move in played[::4] + steals:
        assert GAME.ai_move(before, seat, level, seed=9) == move
        assert GAME.ai_move(replace(before, seed=before.seed + 1), seat, level, seed=9) == move


def test_strong_beats_easy_in_most_two_player_games():
    """A few games (bench/jeexa_ai.py measures hundreds): Easy must stay the weaker level."""
    won = 0
    for seed in range(6):
        state = GAME.initial_state(2, {}, seed)
        strong = seed % 2
        while not GAME.is_over(state):
            seat = GAME.to_act(state)[0]
            state = GAME.apply(state, seat, GAME.ai_move(state, seat, STRONG if seat == strong else EASY, seed=seed))
        won += strong in GAME.outcome(state).winners
    assert won >= 5, won


def test_the_strong_ai_takes_a_joker_when_one_is_there():
    state = position(POCKETS, COLUMN, COLUMN, piece=6)
    assert GAME.ai_move(state, 0, STRONG, seed=1) in ("0,-1,270", "3,-1,270")


def test_the_benchmark_counts_the_completing_moves_offered_and_taken():
    """bench/jeexa_ai.py's figures: in one whole game Strong (seat 1 for game 1) is offered
    goal-completing moves and each one it takes ends the hand as its win."""
    record = play(2, "strong", "random", 1)
    offered, taken = record.summary
    assert record.seat == 1 and record.winners
    assert offered >= 1 and taken == offered
