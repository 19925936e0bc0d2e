"""Computer players.

Level 1 ("Easy") places at random, though it usually keeps its chain of placements going
when it sees how, and mostly removes a random pilgrim of another player.

Level 2 ("Strong") takes the entrance that makes it play earliest in the round (the game
often ends in the middle of a round, and the colours before that point have had one
more turn); as yellow, which always plays first, with four colours it takes a7 or k5.
On its turn it plans the whole rest of the turn with the judge (``judge.py``: a beam search
over the placements still to come, each finished plan followed by its best removal). In the
first round it plays the judge's best plan. From the second round on it plays the judge's
best few plans out to the end many times (``playout.py``: its own colours planned by the
judge, the others as random players) and keeps the plan with the best average margin over
the best other seat, a won game counting ``WIN_WEIGHT`` points more. Its effort is bounded by
counts, never by the clock, and its dice come from the seed, so the same inputs give the
same move on every machine.
"""

from __future__ import annotations

import math
import random

from games.engine.rng import rng_for
from games.rules.mecca.board import ENTRANCES
from games.rules.mecca.counts import Counts
from games.rules.mecca.judge import NOISE, STRONG, Judge, Plan, plans, removals, turn_of
from games.rules.mecca.notation import PASS, place_move, remove_move
from games.rules.mecca.playout import Playout
from games.rules.mecca.rules import (
    ENTRANCE,
    REMOVE,
    State,
    free_entrances,
    max_per_turn,
    owner,
    placement_squares,
    removable_squares,
    turn_order,
)

LEVELS = {1: "Easy", 2: "Strong"}

EASY_KEEPS_CHAIN = 0.6  # how often Easy picks a square that lets its chain go on, when one does
EASY_REMOVES = 0.7  # how often Easy removes when it may

BEAM = 10  # partial turns kept at each placement depth when planning its own move
PLANS_PLAYED_OUT = 8  # the best plans by the judge that get played out
FIRST_PLAYOUTS = 50  # most playouts of each plan before the worse half is dropped (then 100, 200)
WIN_WEIGHT = 3.0  # a won playout, in points of margin
# Positions the playouts of one move may judge, with four colours (a judgement costs more
# with more colours: the budget shrinks in proportion). A move takes at most about 1.7 s.
PLAYOUT_WORK = 42_000
FIRST_ENTRANCES = (ENTRANCES[2], ENTRANCES[5])  # a7, k5: yellow's best, with four colours (see _entrance)


def choose(state: State, level: int, seed: int) -> str:
    rng = rng_for(seed, state.moves_played, "mecca-ai", level)
    if state.step == ENTRANCE:
        return _entrance(state, level, rng)
    if level == 1:
        return _easy(state, rng)
    return _strong(state, rng)


# --- set-up -------------------------------------------------------------------------


def _entrance(state: State, level: int, rng: random.Random) -> str:
    """Easy takes any free entrance. Strong takes the first free one counter-clockwise
    after yellow's, which makes it play as early in the round as it can. As yellow (always
    first in the round, and first to choose) with four colours it takes a7 or k5: in 900
    four-player games against random players with its entrance drawn at random, yellow
    won there by 0.5 pilgrims more than on f1 or f11 (a5 and k7 lie between)."""
    free = free_entrances(state)
    if level == 1:
        return place_move(rng.choice(free))
    if state.colour == 0:
        return place_move(rng.choice(FIRST_ENTRANCES if state.colours == 4 else free))
    start = ENTRANCES.index(state.entrances[0])
    return place_move(min(free, key=lambda square: (ENTRANCES.index(square) - start) % len(ENTRANCES)))


# --- Easy ---------------------------------------------------------------------------


def _easy(state: State, rng: random.Random) -> str:
    colour = state.colour
    if state.step == REMOVE:
        me = owner(colour, state.players)
        others = [sq for sq in removable_squares(state.board) if owner(state.board[sq], state.players) != me]
        if others and rng.random() < EASY_REMOVES:
            return remove_move(rng.choice(others))
        return PASS
    k = state.placed + 1
    squares = placement_squares(state.board, colour, k, state.colours)
    if rng.random() < EASY_KEEPS_CHAIN and k < _limit(state):
        going_on = [
            sq for sq in squares if placement_squares(_put(state.board, sq, colour), colour, k + 1, state.colours)
        ]
        squares = going_on or squares
    return place_move(rng.choice(squares))


# --- Strong -------------------------------------------------------------------------


def _strong(state: State, rng: random.Random) -> str:
    me = owner(state.colour, state.players)
    counts = Counts(state.board, state.hand, state.players)
    judge = Judge(state.players, state.colours, me, STRONG)
    turn = turn_of(state.colour, state.placed, state.round, turn_order(state.entrances))
    if state.step == REMOVE:
        keep = Plan(judge.final(counts, turn) + rng.random() * NOISE, (), None)
        options = [keep, *removals(counts, turn, judge, rng)]
    else:
        options = plans(counts, turn, judge, BEAM, rng)
    options.sort(key=lambda plan: -plan.value)
    candidates = _distinct(counts, options, state.colour, PLANS_PLAYED_OUT)
    best = candidates[0][0] if state.round == 1 or len(candidates) == 1 else _played_out(state, me, candidates, rng)
    if best.squares:
        return place_move(best.squares[0])
    return PASS if best.removal is None else remove_move(best.removal)


def _distinct(counts: Counts, options: list[Plan], colour: int, most: int) -> list[tuple[Plan, Counts]]:
    """The first ``most`` plans that leave different positions, each with its position."""
    seen = set()
    distinct = []
    for plan in options:
        if len(distinct) == most:
            break
        after = counts.copy()
        for square in plan.squares:
            after.put(square, colour)
        if plan.removal is not None:
            after.take_away(plan.removal)
        key = after.board()
        if key not in seen:
            seen.add(key)
            distinct.append((plan, after))
    return distinct


def _played_out(state: State, me: int, candidates: list[tuple[Plan, Counts]], rng: random.Random) -> Plan:
    """The plan with the best playouts, by sequential halving: the work budget is shared
    equally between the stages (three for eight plans); in each, every plan still in the
    running is played out on the same dice until the stage's share is spent (or it has had
    ``FIRST_PLAYOUTS``, doubling each stage), then the worse half drops out. The last two
    are played out most: the budget goes where the choice is close."""
    playout = Playout(state, me)
    budget = PLAYOUT_WORK * 4 / state.colours
    seed = rng.random()
    scores = [0.0] * len(candidates)
    running = list(range(len(candidates)))
    stages = max(1, math.ceil(math.log2(len(candidates))))
    played = 0
    for stage in range(stages):
        share = budget * (stage + 1) / stages
        for _ in range(FIRST_PLAYOUTS << stage):
            if playout.work >= share:
                break
            dice = f"{seed}:{played}"
            for i in running:
                won, lead = playout.result(candidates[i][1].copy(), random.Random(dice))
                scores[i] += lead + WIN_WEIGHT * won
            played += 1
        running.sort(key=lambda i: -(scores[i] + NOISE * candidates[i][0].value))
        running = running[: (len(running) + 1) // 2]
    return candidates[running[0]][0]


# --- helpers ------------------------------------------------------------------------


def _limit(state: State) -> int:
    return 1 if state.round == 1 else max_per_turn(state.colours)


def _put(board: tuple[int, ...], square: int, colour: int) -> tuple[int, ...]:
    return (*board[:square], colour, *board[square + 1 :])

