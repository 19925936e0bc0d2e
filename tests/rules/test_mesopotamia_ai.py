"""Mesopotamia's AI: it decides only on what its seat may know, is deterministic and legal,
delivers offerings against random players (teleporting one straight into the temple), and Easy
does not pick things up to put them down again; and property tests over random games (components
conserved, mana in range, every game ends)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.mesopotamia import GAME
from games.rules.mesopotamia.state import CARDS
from tests.rules.mesopotamia_positions import A, arrange, legal, plains, play, player, start, turn, with_card

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
