"""The strong AI's judgement of a position, and its plan of a whole turn.

``Judge`` values the end of a colour's turn for one seat, in points: the lead over the best
and the average other seat, how many squares each colour has for a 1st, 2nd and 3rd
pilgrim, how many of the seat's pilgrims could be removed, how long a chain the next colour
can place, the pilgrims close to the Kaaba, and an exact win or loss when the turn ends the
game. ``plans`` searches the rest of a turn (a beam over the placements still to come, each
finished plan followed by its best removal) and ranks the plans by that value. Both work on
``Counts``, forwards and back, without copying the board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from games.rules.mecca.counts import Counts
from games.rules.mecca.rules import colours_of, max_per_turn, removal_threshold, winners_of

CHAIN_BONUS = 0.8  # value of being able to place one more pilgrim this turn
NOISE = 1e-3  # seeded tie-break among equal plans
CHAIN_NODES = 60  # positions searched for the next colour's longest chain


@dataclass(frozen=True)
class Weights:
    """What each feature of a position is worth, in points, for the judged seat."""

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


class Plan(NamedTuple):
    """A way to finish a turn: its value, the squares still to place, the removal (or None)."""

    value: float
    squares: tuple[int, ...]
    removal: int | None


class Turn(NamedTuple):
    """Whose turn a plan finishes and what follows it."""

    colour: int
    first: int  # the number of the next pilgrim: 1 at the start of the turn
    limit: int  # the most pilgrims this turn
    after: tuple[int, ...]  # the colours in playing order after this one, this one last
    next_limit: int  # the most pilgrims the next colour may place


def turn_of(colour: int, placed: int, rnd: int, order: tuple[int, ...]) -> Turn:
    """``colour``'s turn in round ``rnd`` of a game played in ``order``, ``placed`` pilgrims in."""
    colours = len(order)
    at = order.index(colour)
    wraps = at + 1 == colours
    limit = max_per_turn(colours)
    return Turn(
        colour=colour,
        first=placed + 1,
        limit=1 if rnd == 1 else limit,
        after=order[at + 1:] + order[: at + 1],
        next_limit=1 if rnd == 1 and not wraps else limit,
    )


class Judge:
    """Values a position for seat ``me`` at the end of a colour's turn."""

    def __init__(self, players: int, colours: int, me: int, weights: Weights) -> None:
        self.players = players
        self.colours = colours
        self.me = me
        self.weights = weights
        self.seat_colours = [colours_of(seat, players) for seat in range(players)]
        self.threshold = removal_threshold(colours)
        self.evaluations = 0  # the effort spent, counted the same on every machine

    def final(self, counts: Counts, turn: Turn) -> float:
        """The value at the end of ``turn``: exact when nobody can place any more."""
        able = counts.able(turn.after)
        if not able:
            return self.over(counts)
        value = self.value(counts)
        following = next(colour for colour in turn.after if colour in able)
        if self.weights.next_chain and following != turn.colour:
            # The next colour to play: its longest chain is exactly what it can do next.
            chain = longest_chain(counts, following, turn.next_limit)
            sign = 1 if counts.owner[following] == self.me else -1
            value += sign * self.weights.next_chain * (chain + (chain >= self.threshold))
        return value

    def over(self, counts: Counts) -> float:
        """The value of a finished game: won or lost, and by how much."""
        won = self.me in winners_of(counts.board(), tuple(counts.hand), self.players)
        return (self.weights.game_over if won else -self.weights.game_over) + self.lead(counts)

    def lead(self, counts: Counts) -> int:
        points = counts.points
        return points[self.me] - max(p for seat, p in enumerate(points) if seat != self.me)

    def value(self, counts: Counts) -> float:
        self.evaluations += 1
        w, me, players = self.weights, self.me, self.players
        points = counts.points
        mine = points[me]
        others = [p for seat, p in enumerate(points) if seat != me]
        value = w.lead_best * (mine - max(others)) + w.lead_mean * (mine - sum(others) / len(others))
        start, second, third = self.prospects(counts)
        value += w.start_mine * start[me] - w.start_theirs * self.mean_of_others(start)
        value += w.second_mine * second[me] - w.second_theirs * self.mean_of_others(second)
        value += w.third_mine * third[me] - w.third_theirs * self.mean_of_others(third)
        value -= w.vulnerable * counts.exposed[me]
        kaaba = counts.kaaba
        value += w.kaaba * (kaaba[me] - max(k for seat, k in enumerate(kaaba) if seat != me))
        hand = counts.hand
        empty_hands = [seat for seat in range(players) if not any(hand[c] for c in self.seat_colours[seat])]
        if empty_hands == [me]:
            value += w.placed_all
        return value

    def mean_of_others(self, numbers: list[float]) -> float:
        return (sum(numbers) - numbers[self.me]) / (self.players - 1)

    def prospects(self, counts: Counts) -> tuple[list[float], list[float], list[float]]:
        """Per seat, averaged over its colours with pilgrims in hand: the squares where the
        colour could place a 1st pilgrim, and how likely a 2nd and a 3rd square are
        (1 - 2^-n for n squares), on the board as it stands."""
        fitting = counts.fitting()
        hand = counts.hand
        start = [0.0] * self.players
        second = [0.0] * self.players
        third = [0.0] * self.players
        for seat in range(self.players):
            colours = self.seat_colours[seat]
            for colour in colours:
                if hand[colour]:
                    fit = fitting[colour]
                    start[seat] += fit[1] / len(colours)
                    second[seat] += (1 - 0.5 ** fit[2]) / len(colours)
                    third[seat] += (1 - 0.5 ** fit[3]) / len(colours)
        return start, second, third


def longest_chain(counts: Counts, colour: int, limit: int) -> int:
    """How many pilgrims ``colour`` can place in one turn from this position, as far as a
    search of ``CHAIN_NODES`` positions finds (with five or six colours the full search is
    too wide; the longest chain found so far stands)."""
    nodes = 0

    def deeper(k: int) -> int:
        nonlocal nodes
        nodes += 1
        if k > limit or not counts.hand[colour] or nodes > CHAIN_NODES:
            return 0
        best = 0
        for square in counts.squares(colour, k):
            counts.put(square, colour)
            best = max(best, 1 + deeper(k + 1))
            counts.lift(square)
            if best == limit - k + 1 or nodes > CHAIN_NODES:
                break
        return best

    return deeper(1)


def plans(counts: Counts, turn: Turn, judge: Judge, beam: int, rng: random.Random,
          removing: bool = True) -> list[Plan]:
    """Every plan for the rest of ``turn`` that the beam keeps (``beam`` partial turns at
    each placement), each with its best removal (unless ``removing`` is off), best first.
    ``counts`` is left as it was."""
    colour = turn.colour
    finished: list[tuple[int, ...]] = []
    frontier: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
    for k in range(turn.first, turn.limit + 1):
        children = []
        for squares, _estimate in frontier:
            for square in squares:
                counts.put(square, colour)
            nexts = counts.squares(colour, k) if counts.hand[colour] else []
            if not nexts:
                finished.append(squares)
            for square in nexts:
                counts.put(square, colour)
                estimate = judge.value(counts) + rng.random() * NOISE
                if k < turn.limit and counts.hand[colour] and counts.squares(colour, k + 1):
                    estimate += CHAIN_BONUS
                counts.lift(square)
                children.append(((*squares, square), estimate))
            for square in reversed(squares):
                counts.lift(square)
        children.sort(key=lambda child: -child[1])
        frontier = children[:beam]
    found = [finish(counts, turn, squares, judge, rng, removing) for squares in finished + [s for s, _ in frontier]
             if squares]
    found.sort(key=lambda plan: -plan.value)
    return found


def finish(counts: Counts, turn: Turn, squares: tuple[int, ...], judge: Judge, rng: random.Random,
           removing: bool) -> Plan:
    """``squares`` placed, then, when ``removing``, the best of passing and every removal the turn has earned."""
    for square in squares:
        counts.put(square, turn.colour)
    best = Plan(judge.final(counts, turn) + rng.random() * NOISE, squares, None)
    if removing and turn.first - 1 + len(squares) >= judge.threshold:
        for victim in removals(counts, turn, judge, rng):
            if victim.value > best.value:
                best = Plan(victim.value, squares, victim.removal)
    for square in reversed(squares):
        counts.lift(square)
    return best


def removals(counts: Counts, turn: Turn, judge: Judge, rng: random.Random) -> list[Plan]:
    """Every removal of another seat's pilgrim open now, valued (passing is not among them).
    Its own are left out: measured over thousands of turns, the judge never chose one."""
    options = []
    mine = counts.owner[turn.colour]
    for square in counts.removable():
        if counts.owner[counts.cells[square]] == mine:
            continue
        gone = counts.take_away(square)
        options.append(Plan(judge.final(counts, turn) + rng.random() * NOISE, (), square))
        counts.undo(gone)
    return options


def best_plan(counts: Counts, turn: Turn, judge: Judge, beam: int, rng: random.Random) -> Plan:
    """The judge's plan for the rest of ``turn``, quicker than ``plans(...)[0]``: only the
    plan best without a removal is tried with each removal (as good, measured: the same
    games won)."""
    ranked = plans(counts, turn, judge, beam, rng, removing=False)
    best = ranked[0]
    for square in best.squares:
        counts.put(square, turn.colour)
    if turn.first - 1 + len(best.squares) >= judge.threshold:
        for victim in removals(counts, turn, judge, rng):
            if victim.value > best.value:
                best = Plan(victim.value, best.squares, victim.removal)
    for square in reversed(ranked[0].squares):
        counts.lift(square)
    return best
