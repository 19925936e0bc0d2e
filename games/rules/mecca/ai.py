"""Computer players.

Level 1 ("Easy") places at random, though it usually keeps its chain of placements going
when it sees how, and mostly removes a random pilgrim of another player.

Level 2 ("Strong") takes the entrance that makes it play earliest in the round (the game
often ends in the middle of a round, and the colours before that point have had one
more turn); as yellow, which always plays first, with four colours it takes a7 or k5.
On its turn it plans the whole rest of the turn: a beam search over the placements still
to come, each finished plan followed by its best removal, valued by
``Judge`` (points over the best and the average opponent; how many squares each colour
has for a 1st, 2nd and 3rd pilgrim; how many of its pilgrims could be removed; how long a
chain the next colour can place; pilgrims close to the Kaaba; an exact win or loss when
the turn ends the game). With four players, from round 2 on, it looks one round ahead:
each of the judge's best plans is followed by many samples of the other colours' turns as
random players play them, and the plan with the best mean chance of winning at the start
of its next turn, by a value learned from 40,000 games (``value.py``), is played. Once the
compound is filling up (``LATE``), when one turn can decide the game, it plays the best few
plans out to the end many times instead (``playout.py``: itself keeping its chains going,
the others as random players) and keeps the plan that wins most often. Its effort is
bounded by counts, never by the clock, and its dice come from the seed, so the same
inputs give the same move on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.engine.rng import rng_for
from games.rules.mecca.board import CLOSE_TO_KAABA, ENTRANCES
from games.rules.mecca.notation import PASS, place_move, remove_move
from games.rules.mecca.playout import Counts, Playout
from games.rules.mecca.rules import (
    EMPTY,
    ENTRANCE,
    REMOVE,
    State,
    can_place,
    colours_of,
    free_entrances,
    max_per_turn,
    open_squares,
    owner,
    placement_squares,
    playable,
    removable_squares,
    removal_threshold,
    take_away,
    totals,
    turn_order,
    winners_of,
)
from games.rules.mecca.value import PLAYERS as VALUE_PLAYERS
from games.rules.mecca.value import chance_of_winning, features

LEVELS = {1: "Easy", 2: "Strong"}

EASY_KEEPS_CHAIN = 0.6  # how often Easy picks a square that lets its chain go on, when one does
EASY_REMOVES = 0.7  # how often Easy removes when it may

BEAM = 10  # partial turns kept at each placement depth
CHAIN_BONUS = 0.8  # value of being able to place one more pilgrim this turn
NOISE = 1e-3  # seeded tie-break among equal plans
CHAIN_NODES = 60  # positions searched for the next colour's longest chain
LATE = 0.45  # share of the compound's squares taken from which Strong plays plans out
PLANS_PLAYED_OUT = 8  # the best plans by the judge that get played out
PLAYOUTS = 150  # playouts per plan, at most
MARGIN_WEIGHT = 0.05  # a point of average margin, in wins, to tell plans with as many wins apart
PLAYOUT_WORK = 2_000_000  # squares examined by the playouts of one move, at most (a whole move: under 0.5 s)
PLANS_LOOKED_AHEAD = 12  # before LATE, with four players: the best plans by the judge looked one round ahead
ROUNDS_SAMPLED = 96  # the other colours' turns sampled after each of those plans
FIRST_ENTRANCES = (ENTRANCES[2], ENTRANCES[5])  # a7, k5: yellow's best, with four colours (see _entrance)


@dataclass(frozen=True)
class Weights:
    """What each feature of a position is worth, in points, for the acting seat."""

    lead_best: float = 1.0  # points over the best opponent
    lead_mean: float = 0.5  # points over the average opponent
    start_mine: float = 0.12  # squares where my colour can place a 1st pilgrim
    start_theirs: float = 0.12  # the same for an average opponent
    second_mine: float = 0.5  # 1 - 2^-n for the n squares that take a 2nd pilgrim of mine
    second_theirs: float = 0.5
    third_mine: float = 0.3  # the same for a 3rd pilgrim
    third_theirs: float = 0.3
    vulnerable: float = 0.3  # my pilgrims next to two of one colour (removable)
    next_chain: float = 0.5  # pilgrims the next colour can place (a removal counts one more)
    kaaba: float = 0.15  # pilgrims close to the Kaaba, mine minus the best opponent's: ties
    placed_all: float = 20.0  # being the only player with an empty hand wins outright
    game_over: float = 100.0  # a turn that ends the game: won or lost for sure


STRONG = Weights()


def choose(state: State, level: int, seed: int) -> str:
    rng = rng_for(seed, state.moves_played, "mecca-ai", level)
    if state.step == ENTRANCE:
        return _entrance(state, level, rng)
    if level == 1:
        return _easy(state, rng)
    return Planner(state, rng, STRONG).best()


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


# --- Strong: judging a position -------------------------------------------------------


class Judge:
    """Values a position for the acting seat at the end of its colour's turn."""

    def __init__(self, state: State, weights: Weights) -> None:
        self.players = state.players
        self.colours = state.colours
        self.colour = state.colour
        self.me = owner(state.colour, state.players)
        self.weights = weights
        self.playable = playable(state.colours)
        order = turn_order(state.entrances)
        at = order.index(state.colour)
        self.later = order[at + 1 :] + order[: at + 1]  # the colours after mine, mine last
        wraps = at + 1 == len(order)
        self.next_limit = 1 if state.round == 1 and not wraps else max_per_turn(state.colours)
        self.threshold = removal_threshold(state.colours)

    def final(self, board: tuple[int, ...], hand: tuple[int, ...]) -> float:
        """The value at the end of the turn: exact when nobody can place any more."""
        able = [colour for colour in self.later if can_place(board, hand, colour)]
        if not able:
            return self.over(board, hand)
        value = self.value(board, hand)
        if self.weights.next_chain and able[0] != self.colour:
            # The next colour to play: its longest chain is exactly what it can do next.
            chain = longest_chain(board, hand, able[0], self.next_limit, self.colours)
            sign = 1 if owner(able[0], self.players) == self.me else -1
            value += sign * self.weights.next_chain * (chain + (chain >= self.threshold))
        return value

    def over(self, board: tuple[int, ...], hand: tuple[int, ...]) -> float:
        """The value of a finished game: won or lost, and by how much."""
        points = self.points(board)
        lead = points[self.me] - max(p for seat, p in enumerate(points) if seat != self.me)
        won = self.me in winners_of(board, hand, self.players)
        return (self.weights.game_over if won else -self.weights.game_over) + lead

    def value(self, board: tuple[int, ...], hand: tuple[int, ...]) -> float:
        w = self.weights
        points = self.points(board)
        mine = points[self.me]
        others = [p for seat, p in enumerate(points) if seat != self.me]
        value = w.lead_best * (mine - max(others)) + w.lead_mean * (mine - sum(others) / len(others))
        start, second, third = self.prospects(board, hand)
        value += w.start_mine * start[self.me] - w.start_theirs * self.mean_of_others(start)
        value += w.second_mine * second[self.me] - w.second_theirs * self.mean_of_others(second)
        value += w.third_mine * third[self.me] - w.third_theirs * self.mean_of_others(third)
        value -= w.vulnerable * sum(
            1 for square in removable_squares(board) if owner(board[square], self.players) == self.me
        )
        kaaba = [0] * self.players
        for square in CLOSE_TO_KAABA:
            if board[square] >= 0:
                kaaba[owner(board[square], self.players)] += 1
        value += w.kaaba * (kaaba[self.me] - max(k for seat, k in enumerate(kaaba) if seat != self.me))
        empty_hands = [seat for seat in range(self.players) if not any(hand[c] for c in colours_of(seat, self.players))]
        if empty_hands == [self.me]:
            value += w.placed_all
        return value

    def mean_of_others(self, numbers: list[float]) -> float:
        return (sum(numbers) - numbers[self.me]) / (self.players - 1)

    def points(self, board: tuple[int, ...]) -> list[int]:
        return totals(board, self.players)

    def prospects(self, board: tuple[int, ...], hand: tuple[int, ...]) -> tuple[list[float], ...]:
        """Per seat, averaged over its colours with pilgrims in hand: the squares where the
        colour could place a 1st pilgrim, and how likely a 2nd and a 3rd square are
        (1 - 2^-n for n squares), on the board as it stands."""
        fitting = open_squares(board, self.colours)
        start = [0.0] * self.players
        second = [0.0] * self.players
        third = [0.0] * self.players
        for seat in range(self.players):
            colours = colours_of(seat, self.players)
            for colour in colours:
                if hand[colour]:
                    start[seat] += fitting[colour][1] / len(colours)
                    second[seat] += (1 - 0.5 ** fitting[colour][2]) / len(colours)
                    third[seat] += (1 - 0.5 ** fitting[colour][3]) / len(colours)
        return start, second, third


def longest_chain(board: tuple[int, ...], hand: tuple[int, ...], colour: int, limit: int, colours: int) -> int:
    """How many pilgrims ``colour`` can place in one turn from this position, as far as a
    search of ``CHAIN_NODES`` positions finds (with five or six colours the full search is
    too wide; the longest chain found so far stands)."""
    nodes = 0

    def deeper(board: tuple[int, ...], k: int, left: int) -> int:
        nonlocal nodes
        nodes += 1
        if k > limit or not left or nodes > CHAIN_NODES:
            return 0
        best = 0
        for square in placement_squares(board, colour, k, colours):
            best = max(best, 1 + deeper(_put(board, square, colour), k + 1, left - 1))
            if best == limit - k + 1 or nodes > CHAIN_NODES:
                break
        return best

    return deeper(board, 1, hand[colour])


# --- Strong: choosing a move ------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    moves: tuple[int, ...]  # squares still to place this turn
    board: tuple[int, ...]
    hand: tuple[int, ...]
    estimate: float


@dataclass(frozen=True)
class Candidate:
    """A way to finish the turn: its first move and the position it leaves."""

    value: float
    move: str
    board: tuple[int, ...]
    hand: tuple[int, ...]


class Planner:
    """Beam search over the rest of the acting colour's turn; late in the game, playouts."""

    def __init__(self, state: State, rng: random.Random, weights: Weights) -> None:
        self.state = state
        self.rng = rng
        self.colour = state.colour
        self.judge = Judge(state, weights)
        self.limit = _limit(state)
        self.threshold = removal_threshold(state.colours)

    def best(self) -> str:
        candidates = (
            self.removals(self.state.board, self.state.hand, None) if self.state.step == REMOVE else (self.turns())
        )
        candidates.sort(key=lambda candidate: -candidate.value)
        if self.late() and len(candidates) > 1:
            return self.played_out(candidates[:PLANS_PLAYED_OUT])
        if self.looks_ahead() and len(candidates) > 1:
            return self.looked_ahead(candidates[:PLANS_LOOKED_AHEAD])
        return candidates[0].move

    def turns(self) -> list[Candidate]:
        """Every plan the beam keeps, finished with its best removal."""
        state = self.state
        finished: list[Plan] = []
        beam = [Plan((), state.board, state.hand, 0.0)]
        for k in range(state.placed + 1, self.limit + 1):
            children = []
            for plan in beam:
                squares = placement_squares(plan.board, self.colour, k, state.colours) if plan.hand[self.colour] else []
                if not squares:
                    finished.append(plan)
                children += [self.child(plan, square, k) for square in squares]
            beam = sorted(children, key=lambda plan: -plan.estimate)[:BEAM]
        return [self.finish(plan) for plan in finished + beam if plan.moves]

    def child(self, plan: Plan, square: int, k: int) -> Plan:
        board = _put(plan.board, square, self.colour)
        hand = _take(plan.hand, self.colour)
        estimate = self.judge.value(board, hand) + self.rng.random() * NOISE
        if k < self.limit and hand[self.colour] and placement_squares(board, self.colour, k + 1, self.state.colours):
            estimate += CHAIN_BONUS
        return Plan((*plan.moves, square), board, hand, estimate)

    def finish(self, plan: Plan) -> Candidate:
        first = place_move(plan.moves[0])
        if self.state.placed + len(plan.moves) >= self.threshold:
            return max(self.removals(plan.board, plan.hand, first), key=lambda candidate: candidate.value)
        value = self.judge.final(plan.board, plan.hand) + self.rng.random() * NOISE
        return Candidate(value, first, plan.board, plan.hand)

    def removals(self, board: tuple[int, ...], hand: tuple[int, ...], first: str | None) -> list[Candidate]:
        """Passing and every removal; ``first`` is the move that starts the plan, if any."""
        options = [Candidate(self.judge.final(board, hand), first or PASS, board, hand)]
        for square in removable_squares(board):
            after_board, after_hand, _removal = take_away(board, hand, square, self.colour)
            value = self.judge.final(after_board, after_hand) + self.rng.random() * NOISE
            options.append(Candidate(value, first or remove_move(square), after_board, after_hand))
        return options

    def late(self) -> bool:
        taken = sum(1 for colour in self.state.board if colour != EMPTY)
        return taken >= LATE * (len(self.judge.playable) + self.state.colours)

    def looks_ahead(self) -> bool:
        """From round 2 on, in the player count the learned value was fitted to."""
        return bool(PLANS_LOOKED_AHEAD) and self.state.players == VALUE_PLAYERS and self.state.round >= 2

    def looked_ahead(self, candidates: list[Candidate]) -> str:
        """The candidate with the best chance of winning one round later: the other colours'
        turns played as random players play, ``ROUNDS_SAMPLED`` times (the same dice for
        every candidate), then the learned value (``value.py``) at the start of its next turn,
        or the result when the game ends first."""
        playout = Playout(self.state, self.judge.me)
        others = tuple(colour for colour in self.judge.later if colour != self.colour)
        seed = self.rng.random()
        chances = [0.0] * len(candidates)
        for sample in range(ROUNDS_SAMPLED):
            for i, candidate in enumerate(candidates):
                counts, hand = Counts(candidate.board, self.state.colours), list(candidate.hand)
                my_turn = playout.to_my_turn(counts, hand, random.Random(f"{seed}:{sample}"))
                board, after = tuple(counts.cells), tuple(hand)
                if not my_turn:
                    chances[i] += self.judge.me in winners_of(board, after, self.state.players)
                    continue
                chain = longest_chain(board, after, self.colour, max_per_turn(self.state.colours), self.state.colours)
                numbers = features(board, after, self.colour, others, chain)
                chances[i] += chance_of_winning(numbers)
        best = max(range(len(candidates)), key=lambda i: chances[i] + NOISE * candidates[i].value)
        return candidates[best].move

    def played_out(self, candidates: list[Candidate]) -> str:
        """The candidate that wins most playouts. Every candidate meets the same dice, one
        playout each in turn, until ``PLAYOUTS`` each or the work budget is spent."""
        playout = Playout(self.state, self.judge.me)
        seed = self.rng.random()
        wins = [0] * len(candidates)
        margins = [0] * len(candidates)
        played = 0
        while played < PLAYOUTS and playout.work <= PLAYOUT_WORK:
            for i, candidate in enumerate(candidates):
                won, lead = playout.result(candidate.board, candidate.hand, random.Random(f"{seed}:{played}"))
                wins[i] += won
                margins[i] += lead
            played += 1

        def score(i: int) -> float:
            return wins[i] + MARGIN_WEIGHT * margins[i] / played + NOISE * candidates[i].value

        return candidates[max(range(len(candidates)), key=score)].move


# --- helpers ------------------------------------------------------------------------


def _limit(state: State) -> int:
    return 1 if state.round == 1 else max_per_turn(state.colours)


def _put(board: tuple[int, ...], square: int, colour: int) -> tuple[int, ...]:
    return (*board[:square], colour, *board[square + 1 :])


def _take(hand: tuple[int, ...], colour: int) -> tuple[int, ...]:
    return (*hand[:colour], hand[colour] - 1, *hand[colour + 1 :])
