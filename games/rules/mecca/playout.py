"""Fast playouts of a Mecca position to the end of the game, for the strong AI.

The rules here are the rules of ``rules.py`` on plain lists (no state objects), kept to
what a playout needs. Each square keeps a running count of its neighbours, in all and per
colour, and how many colours it sees twice, so the placement test and the removal test are
a few lookups instead of a walk round eight neighbours: the counts change only around the
square a pilgrim lands on or leaves. The players are simple: the AI's own colours keep
their chain of placements going when they can and remove a pilgrim of the best-placed
other player; the other colours play like a random player (any legal square, any removal
or none).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from games.rules.mecca.board import CLOSE_TO_KAABA, CRESCENT_COLOUR, ENTRANCES, NEIGHBOURS, SQUARES
from games.rules.mecca.rules import (
    EMPTY,
    State,
    emptied_seats,
    max_per_turn,
    owner,
    playable,
    removal_threshold,
    totals,
    turn_order,
    winners_of,
)

ENTRANCE_SQUARES = frozenset(ENTRANCES)


class Counts:
    """A board with, for every square, its neighbours counted: ``around[sq]`` in all,
    ``seen[sq * colours + c]`` of colour c, and ``twice[sq]`` the colours seen two or more
    times (a pilgrim there is removable; an empty square there takes no pilgrim)."""

    def __init__(self, board: tuple[int, ...], colours: int) -> None:
        self.cells = [EMPTY] * SQUARES
        self.colours = colours
        self.around = [0] * SQUARES
        self.seen = [0] * (SQUARES * colours)
        self.twice = [0] * SQUARES
        for square, colour in enumerate(board):
            if colour != EMPTY:
                self.put(square, colour)

    def put(self, square: int, colour: int) -> None:
        self.cells[square] = colour
        around, seen, twice, colours = self.around, self.seen, self.twice, self.colours
        for neighbour in NEIGHBOURS[square]:
            around[neighbour] += 1
            index = neighbour * colours + colour
            seen[index] += 1
            if seen[index] == 2:
                twice[neighbour] += 1

    def lift(self, square: int) -> int:
        colour = self.cells[square]
        self.cells[square] = EMPTY
        around, seen, twice, colours = self.around, self.seen, self.twice, self.colours
        for neighbour in NEIGHBOURS[square]:
            around[neighbour] -= 1
            index = neighbour * colours + colour
            seen[index] -= 1
            if seen[index] == 1:
                twice[neighbour] -= 1
        return colour

    def removable(self, square: int) -> bool:
        return self.cells[square] != EMPTY and self.twice[square] > 0 and square not in ENTRANCE_SQUARES


class Playout:
    """Plays on from the end of a turn of the acting colour of ``state``, for seat ``me``."""

    def __init__(self, state: State, me: int) -> None:
        self.me = me
        self.players = state.players
        self.colours = state.colours
        self.order = turn_order(state.entrances)
        self.playable = playable(state.colours)
        self.limit = max_per_turn(state.colours)
        self.threshold = removal_threshold(state.colours)
        self.start = (self.order.index(state.colour), state.round, state.final_round)
        self.work = 0  # squares examined so far: the effort, counted the same on every machine

    def result(self, board: tuple[int, ...], hand: tuple[int, ...], rng: random.Random) -> tuple[bool, int]:
        """Whether ``me`` is among the winners at the end, and its margin over the best other."""
        counts = list(hand)
        final = self.finish(Counts(board, self.colours), counts, rng)
        points = self.points(final)
        best_other = max(p for seat, p in enumerate(points) if seat != self.me)
        return self.me in winners_of(final, tuple(counts), self.players), points[self.me] - best_other

    def finish(self, board: Counts, hand: list[int], rng: random.Random) -> tuple[int, ...]:
        """Plays to the end of the game; returns the final board (``hand`` is updated)."""
        for colour, limit in self.turns(board, hand):
            self.turn(board, hand, colour, limit, rng)
        return tuple(board.cells)

    def to_my_turn(self, board: Counts, hand: list[int], rng: random.Random) -> bool:
        """Plays the other colours' turns until the acting colour's next one (``board`` and
        ``hand`` are updated); False if the game ends first."""
        for colour, limit in self.turns(board, hand):
            if colour == self.order[self.start[0]]:
                return True
            self.turn(board, hand, colour, limit, rng)
        return False

    def turns(self, board: Counts, hand: list[int]) -> Iterator[tuple[int, int]]:
        """The colour to play each turn and its most pilgrims, until the game ends; the
        caller plays each turn on ``board`` and ``hand`` before asking for the next."""
        position, rnd, final = self.start
        while True:  # each pass of the loop is the end of a turn
            final = final or bool(emptied_seats(tuple(hand), self.players))
            able = self.able(board, hand)
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
            yield colour, 1 if rnd == 1 else self.limit

    def turn(self, board: Counts, hand: list[int], colour: int, limit: int, rng: random.Random) -> None:
        mine = owner(colour, self.players) == self.me
        placed = 0
        for k in range(1, limit + 1):
            squares = self.squares(board, colour, k) if hand[colour] else []
            if not squares:
                break
            square = self.keep_going(board, colour, k, limit, squares, rng) if mine else rng.choice(squares)
            board.put(square, colour)
            hand[colour] -= 1
            placed += 1
        if placed >= self.threshold:
            self.work += len(board.cells)
            victims = [square for square in range(SQUARES) if board.removable(square)]
            victim = self.victim(board, colour, victims) if mine else rng.choice([None, *victims])
            if victim is not None:
                self.take_away(board, hand, victim)

    def keep_going(self, board: Counts, colour: int, k: int, limit: int, squares: list[int], rng: random.Random) -> int:
        """A square after which the chain can go on, if there is one; among those, one of
        the colour's crescents first, then one close to the Kaaba."""
        rng.shuffle(squares)
        squares.sort(key=lambda sq: (CRESCENT_COLOUR.get(sq) != colour, sq not in CLOSE_TO_KAABA))
        if k == limit:
            return squares[0]
        for square in squares:
            board.put(square, colour)
            going_on = bool(self.squares(board, colour, k + 1))
            board.lift(square)
            if going_on:
                return square
        return squares[0]

    def victim(self, board: Counts, colour: int, victims: list[int]) -> int | None:
        points = self.points(board.cells)
        others = [sq for sq in victims if owner(board.cells[sq], self.players) != owner(colour, self.players)]
        return max(others, key=lambda sq: points[owner(board.cells[sq], self.players)], default=None)

    def take_away(self, board: Counts, hand: list[int], square: int) -> None:
        """The removal and the isolated pilgrims it leaves: only the removed pilgrim's
        neighbours can have lost their last neighbour."""
        hand[board.lift(square)] += 1
        for neighbour in NEIGHBOURS[square]:
            if board.cells[neighbour] != EMPTY and not board.around[neighbour] and neighbour not in ENTRANCE_SQUARES:
                hand[board.lift(neighbour)] += 1

    def squares(self, board: Counts, colour: int, k: int) -> list[int]:
        """The k-th pilgrim's squares: the test of ``rules.fits``, read off the counts."""
        self.work += len(self.playable)
        cells, around, twice, seen, colours = board.cells, board.around, board.twice, board.seen, board.colours
        return [
            sq
            for sq in self.playable
            if around[sq] == k and cells[sq] == EMPTY and not twice[sq] and not seen[sq * colours + colour]
        ]

    def able(self, board: Counts, hand: list[int]) -> set[int]:
        """The colours that could start a turn: a pilgrim in hand and a square next to
        exactly one pilgrim, of another colour."""
        self.work += len(self.playable)
        cells, around = board.cells, board.around
        lone = set()  # the colours of the lone neighbours of such squares
        for sq in self.playable:
            if around[sq] == 1 and cells[sq] == EMPTY:
                lone.add(next(cells[n] for n in NEIGHBOURS[sq] if cells[n] != EMPTY))
                if len(lone) > 1:
                    break
        if not lone:
            return set()
        return {colour for colour in self.order if hand[colour] and (len(lone) > 1 or colour not in lone)}

    def points(self, cells: list[int] | tuple[int, ...]) -> list[int]:
        return totals(cells, self.players)
