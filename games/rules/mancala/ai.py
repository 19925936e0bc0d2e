"""Computer players.

Level 1 ("Easy") looks one move ahead: it takes the move that gains it most coins
right now, with seeded noise so it does not always play the same game.
Level 2 ("Strong") runs alpha-beta minimax with iterative deepening. Its effort is
bounded by a count of positions, not by the clock, so the same inputs always give the
same move on any machine (about 12,000 positions: well under a second per move). A position is
scored by the lead in the mancalas plus a small, per-variant worth of the coins still on one's
own tiles; 25 coins in a mancala decide the game.
"""

from __future__ import annotations

import random

from games.engine.rng import rng_for
from games.rules.mancala.rules import (
    EGYPTIAN,
    ETHIOPIAN,
    KALAH,
    LEFT,
    NIGERIAN,
    RIGHT,
    STORE,
    Board,
    State,
    Turn,
    movable,
    play,
    side,
)

Move = tuple[int, int]  # (tile index 0..5, step)

EASY_NOISE = 1.5  # coins of random preference: enough to miss some tactics, not to blunder wildly
EASY_AGAIN_BONUS = 1.0  # an extra turn is worth about a coin to a one-move thinker
WIN = 1_000.0
MAJORITY = 25  # 25 of the 48 coins in a mancala decide the game: mancalas never lose coins
# Worth of a coin still on your own tiles, per variant, chosen by measuring against the easy level
# (bench/mancala_ai.py). Egyptian did best with a small penalty: a lone coin captures across
# there, so such coins are targets. Ethiopian and Kalah did best with a small bonus: the end
# sweeps them to their owner. Nigerian leftovers do not count at all.
SIDE_WEIGHT = {EGYPTIAN: -0.25, ETHIOPIAN: 0.25, KALAH: 0.25, NIGERIAN: 0.0}
NODE_BUDGET = 12_000
MAX_DEPTH = 30


class OutOfBudget(Exception):
    """The search used up its positions; the last finished depth stands."""


def choose(state: State, seat: int, level: int, seed: int) -> Move:
    rng = rng_for(seed, state.moves_played, "mancala-ai", level)
    moves = legal(state.board, seat, state.variant)
    rng.shuffle(moves)  # ties go to a seeded coin toss
    if level == 1:
        return _greedy(state, seat, moves, rng)
    return Search(state.variant, seat).best(state.board, moves)


def legal(board: Board, seat: int, variant: str) -> list[Move]:
    steps = (RIGHT, LEFT) if variant == ETHIOPIAN else (RIGHT,)
    return [(tile, step) for tile in movable(board, seat, variant) for step in steps]


def _greedy(state: State, seat: int, moves: list[Move], rng: random.Random) -> Move:
    def score(move: Move) -> float:
        turn = play(state.board, seat, *move, state.variant)
        gain: float = _store_lead(turn.board, seat) - _store_lead(state.board, seat)
        if turn.over:
            gain += WIN * _sign(_store_lead(turn.board, seat))
        elif turn.to_move == seat:
            gain += EASY_AGAIN_BONUS
        return gain + rng.uniform(0, EASY_NOISE)

    return max(moves, key=score)


class Search:
    """Alpha-beta minimax seen from ``me``; a player who moves again simply moves again."""

    def __init__(self, variant: str, me: int) -> None:
        self.variant = variant
        self.me = me
        self.side_weight = SIDE_WEIGHT[variant]
        self.nodes = 0

    def best(self, board: Board, moves: list[Move]) -> Move:
        children = [(move, play(board, self.me, *move, self.variant)) for move in moves]
        best = children[0][0]
        for depth in range(1, MAX_DEPTH + 1):
            try:
                scored = self.score_root(children, depth)
            except OutOfBudget:
                break
            # Stable sort: the best move first for the next depth, seeded order among equals.
            scored.sort(key=lambda item: -item[0])
            children = [(move, turn) for _score, move, turn in scored]
            best = children[0][0]
            if abs(scored[0][0]) >= WIN:  # a forced result: looking deeper changes nothing
                break
        return best

    def score_root(self, children: list[tuple[Move, Turn]], depth: int) -> list[tuple[float, Move, Turn]]:
        """Each root move's value; moves no better than the best so far score as that bound."""
        alpha = -WIN * 2
        scored = []
        for move, turn in children:
            score = self.value(turn, depth - 1, alpha, WIN * 2)
            alpha = max(alpha, score)
            scored.append((score, move, turn))
        return scored

    def value(self, turn: Turn, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > NODE_BUDGET:
            raise OutOfBudget
        board = turn.board
        if turn.over:
            return WIN * _sign(_store_lead(board, self.me)) + _store_lead(board, self.me)
        lead = _store_lead(board, self.me)
        if board[STORE[self.me]] >= MAJORITY or board[STORE[1 - self.me]] >= MAJORITY:
            return WIN * _sign(lead) + lead
        if depth == 0:
            return self.evaluate(board)
        seat = turn.to_move
        children = [play(board, seat, *move, self.variant) for move in legal(board, seat, self.variant)]
        mine = seat == self.me
        children.sort(key=lambda child: self.evaluate(child.board), reverse=mine)
        for child in children:
            score = self.value(child, depth - 1, alpha, beta)
            if mine:
                alpha = max(alpha, score)
            else:
                beta = min(beta, score)
            if alpha >= beta:
                break
        return alpha if mine else beta

    def evaluate(self, board: Board) -> float:
        lead: float = _store_lead(board, self.me)
        if self.side_weight:
            lead += self.side_weight * (side(board, self.me) - side(board, 1 - self.me))
        return lead


def _store_lead(board: Board, seat: int) -> int:
    return board[STORE[seat]] - board[STORE[1 - seat]]


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)
