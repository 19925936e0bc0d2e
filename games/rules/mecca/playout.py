"""Playouts of a Mecca position to the end of the game, for the strong AI.

The rules here are those of ``rules.py``, kept to what a playout needs, on ``Counts``. The
other colours play like a random player (any legal square, any removal or none), as the
players the AI is measured against do; the AI's own colours play as the strong AI plays
without its playouts: each turn planned whole by the judge (a narrow beam, and without the
next colour's longest chain, which costs more than it adds here). Playing itself well
matters: with its colours played by a simple rule instead (keep the chain going), the
playouts misjudged the early and middle game, and the AI won fewer games by them than by
the judge alone.
"""

from __future__ import annotations

import dataclasses
import random

from games.rules.mecca.counts import Counts
from games.rules.mecca.judge import STRONG, Judge, Turn, best_plan, turn_of
from games.rules.mecca.rules import State, emptied_seats, removal_threshold, turn_order, winners_of

PLAYOUT_WEIGHTS = dataclasses.replace(STRONG, next_chain=0.0)
PLAYOUT_BEAM = 3  # partial turns kept at each placement of the AI's own turns


class Playout:
    """Plays on from the end of the turn of the acting colour of ``state``, for seat ``me``."""

    def __init__(self, state: State, me: int) -> None:
        self.me = me
        self.players = state.players
        self.order = turn_order(state.entrances)
        self.threshold = removal_threshold(state.colours)
        self.start = (self.order.index(state.colour), state.round, state.final_round)
        self.judge = Judge(state.players, state.colours, me, PLAYOUT_WEIGHTS)

    @property
    def work(self) -> int:
        """Positions judged so far: the effort, counted the same on every machine."""
        return self.judge.evaluations

    def result(self, counts: Counts, rng: random.Random) -> tuple[bool, int]:
        """Plays ``counts`` (changed in place) to the end: whether ``me`` is among the
        winners, and its margin over the best other seat."""
        self.finish(counts, rng)
        won = self.me in winners_of(counts.board(), tuple(counts.hand), self.players)
        return won, self.judge.lead(counts)

    def finish(self, counts: Counts, rng: random.Random) -> None:
        """Plays to the end of the game."""
        position, rnd, final = self.start
        while True:  # each pass of the loop is the end of a turn
            final = final or bool(emptied_seats(tuple(counts.hand), self.players))
            able = counts.able(self.order)
            if not able:
                return
            while True:
                position += 1
                if position == len(self.order):
                    position, rnd = 0, rnd + 1
                    if final:
                        return
                colour = self.order[position]
                if colour in able:
                    break
            turn = turn_of(colour, 0, rnd, self.order)
            if counts.owner[colour] == self.me:
                self.own_turn(counts, turn, rng)
            else:
                self.random_turn(counts, turn, rng)

    def own_turn(self, counts: Counts, turn: Turn, rng: random.Random) -> None:
        best = best_plan(counts, turn, self.judge, PLAYOUT_BEAM, rng)
        for square in best.squares:
            counts.put(square, turn.colour)
        if best.removal is not None:
            counts.take_away(best.removal)

    def random_turn(self, counts: Counts, turn: Turn, rng: random.Random) -> None:
        placed = 0
        for k in range(1, turn.limit + 1):
            squares = counts.squares(turn.colour, k) if counts.hand[turn.colour] else []
            if not squares:
                break
            counts.put(rng.choice(squares), turn.colour)
            placed += 1
        if placed >= self.threshold:
            victim = rng.choice([None, *counts.removable()])
            if victim is not None:
                counts.take_away(victim)
