"""Mecca property tests over random games: the invariants hold (every colour's 18 pilgrims
counted, no pilgrim alone or next to its own colour, purple mats and unused entrances empty),
every game ends, a seat is only asked to act with a real choice, and the strong AI's playouts
and look-ahead keep the rules."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import Outcome
from games.rules.mecca import GAME
from games.rules.mecca.board import COLOURS, ENTRANCES, KAABA, NEIGHBOURS, PURPLE, SQUARES
from games.rules.mecca.playout import Counts, Playout
from games.rules.mecca.rules import BLOCKED, EMPTIED, EMPTY, ENTRANCE, PILGRIMS, PLACE, State, can_place, emptied_seats
from tests.rules.mecca_positions import seat_of

# --- Properties over random games -------------------------------------------------------------


def _invariants(state: State) -> None:
    colours = state.colours
    board = state.board
    # Conservation: every colour's pilgrims on the board plus in hand make 18.
    assert GAME.conserved(state) == {COLOURS[c]: PILGRIMS for c in range(colours)}
    used = set(state.entrances)
    for square in range(SQUARES):
        colour = board[square]
        if colour == EMPTY:
            continue
        assert square not in KAABA
        if colours == 4:
            assert square not in PURPLE, "purple mats are out of play with four colours"
        if square in ENTRANCES:
            assert square in used, "an unused entrance stays empty"
            continue
        around = [board[n] for n in NEIGHBOURS[square] if board[n] != EMPTY]
        assert around, "a pilgrim is never alone (isolated ones go back)"
        assert colour not in around, "no pilgrim ever touches one of its own colour"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_random_games_keep_the_invariants_and_end(players, seed):
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    for _ in range(GAME.playout_limit):
        if GAME.is_over(state):
            break
        seat = seat_of(state)
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        if state.step != ENTRANCE:
            _invariants(state)
    assert GAME.is_over(state), "every game ends"
    outcome = GAME.outcome(state)
    assert isinstance(outcome, Outcome) and outcome.winners
    assert state.reason in (BLOCKED, EMPTIED)
    if state.reason == BLOCKED:
        assert not any(GAME.legal_moves(state, seat) for seat in range(players))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), moves=st.integers(8, 80))
def test_the_strong_ais_playouts_keep_the_rules_and_end_where_the_game_ends(players, seed, moves):
    """The playouts keep running neighbour counts instead of asking rules.py: whatever
    they play, they must end in a position the rules accept and call finished, with counts
    that match the board."""
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    for _ in range(moves):
        if GAME.is_over(state):
            return
        seat = seat_of(state)
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    if state.step != PLACE or state.placed:
        return
    counts, hand = Counts(state.board, state.colours), list(state.hand)
    board = Playout(state, me=seed % players).finish(counts, hand, rng)
    final = dataclasses.replace(state, board=board, hand=tuple(hand))
    _invariants(final)
    fresh = Counts(board, state.colours)
    assert (counts.around, counts.seen, counts.twice) == (fresh.around, fresh.seen, fresh.twice)
    blocked = not any(can_place(board, final.hand, colour) for colour in range(state.colours))
    assert blocked or emptied_seats(final.hand, players)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), moves=st.integers(8, 80))
def test_the_look_ahead_stops_at_the_acting_colours_next_turn(players, seed, moves):
    """Played from the end of a colour's turn, the others' turns end where that colour can
    place again, or where the game is over: blocked, or a hand emptied (this round or before)."""
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    for _ in range(moves):
        if GAME.is_over(state):
            return
        state = GAME.apply(state, seat_of(state), rng.choice(GAME.legal_moves(state, seat_of(state))))
    if state.step != PLACE or state.placed or state.round < 2:
        return
    counts, hand = Counts(state.board, state.colours), list(state.hand)
    my_turn = Playout(state, me=seat_of(state)).to_my_turn(counts, hand, rng)
    after = dataclasses.replace(state, board=tuple(counts.cells), hand=tuple(hand))
    _invariants(after)
    fresh = Counts(after.board, state.colours)
    assert (counts.around, counts.seen, counts.twice) == (fresh.around, fresh.seen, fresh.twice)
    if my_turn:
        assert can_place(after.board, after.hand, state.colour)
    else:
        blocked = not any(can_place(after.board, after.hand, colour) for colour in range(state.colours))
        assert blocked or emptied_seats(after.hand, players) or state.final_round


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_a_seat_is_only_asked_to_act_with_a_real_choice(players, seed):
    rng = random.Random(seed)
    state = GAME.initial_state(players, {}, seed)
    while not GAME.is_over(state):
        seat = seat_of(state)
        legal = GAME.legal_moves(state, seat)
        assert legal and legal != ["pass"]
        state = GAME.apply(state, seat, rng.choice(legal))
