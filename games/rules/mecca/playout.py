"""Fast playouts of a Mecca position to the end of the game, for the strong AI.

The rules here are the rules of ``rules.py`` on plain lists (no state objects), kept to
what a playout needs. The players are simple: the AI's own colours keep their chain of
placements going when they can and remove a pilgrim of the best-placed other player;
the other colours play like a random player (any legal square, any removal or none).
"""

from __future__ import annotations

import random

from games.rules.mecca.board import CLOSE_TO_KAABA, CRESCENT_COLOUR, ENTRANCES, NEIGHBOURS
from games.rules.mecca.rules import (
    EMPTY,
    State,
    colours_of,
    fits,
    is_removable,
    max_per_turn,
    owner,
    playable,
    removal_threshold,
    turn_order,
    winners_of,
)


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
        cells, counts = list(board), list(hand)
        self.finish(cells, counts, rng)
        final_board, final_hand = tuple(cells), tuple(counts)
        points = self.points(cells)
        best_other = max(p for seat, p in enumerate(points) if seat != self.me)
        return self.me in winners_of(final_board, final_hand, self.players), points[self.me] - best_other

    def finish(self, board: list[int], hand: list[int], rng: random.Random) -> None:
        position, rnd, final = self.start
        while True:  # each pass of the loop is the end of a turn
            final = final or any(not self.seat_hand(hand, seat) for seat in range(self.players))
            if not any(self.can_place(board, hand, colour) for colour in self.order):
                return
            while True:
                position += 1
                if position == len(self.order):
                    position, rnd = 0, rnd + 1
                    if final:
                        return
                colour = self.order[position]
                if self.can_place(board, hand, colour):
                    break
            self.turn(board, hand, colour, 1 if rnd == 1 else self.limit, rng)

    def turn(self, board: list[int], hand: list[int], colour: int, limit: int, rng: random.Random) -> None:
        mine = owner(colour, self.players) == self.me
        placed = 0
        for k in range(1, limit + 1):
            squares = self.squares(board, colour, k) if hand[colour] else []
            if not squares:
                break
            square = self.keep_going(board, colour, k, limit, squares, rng) if mine else rng.choice(squares)
            board[square] = colour
            hand[colour] -= 1
            placed += 1
        if placed >= self.threshold:
            victims = [square for square in range(len(board)) if is_removable(board, square)]
            victim = self.victim(board, colour, victims) if mine else rng.choice([None, *victims])
            if victim is not None:
                self.take_away(board, hand, victim)

    def keep_going(self, board: list[int], colour: int, k: int, limit: int, squares: list[int],
                   rng: random.Random) -> int:
        """A square after which the chain can go on, if there is one; among those, one of
        the colour's crescents first, then one close to the Kaaba."""
        rng.shuffle(squares)
        squares.sort(key=lambda sq: (CRESCENT_COLOUR.get(sq) != colour, sq not in CLOSE_TO_KAABA))
        if k == limit:
            return squares[0]
        for square in squares:
            self.work += len(self.playable)
            board[square] = colour
            going_on = any(board[sq] == EMPTY and fits(board, sq, colour, k + 1) for sq in self.playable)
            board[square] = EMPTY
            if going_on:
                return square
        return squares[0]

    def victim(self, board: list[int], colour: int, victims: list[int]) -> int | None:
        points = self.points(board)
        others = [sq for sq in victims if owner(board[sq], self.players) != owner(colour, self.players)]
        return max(others, key=lambda sq: points[owner(board[sq], self.players)], default=None)

    def take_away(self, board: list[int], hand: list[int], square: int) -> None:
        """The removal and the isolated pilgrims it leaves: only the removed pilgrim's
        neighbours can have lost their last neighbour."""
        hand[board[square]] += 1
        board[square] = EMPTY
        for neighbour in NEIGHBOURS[square]:
            if (
                board[neighbour] != EMPTY
                and neighbour not in ENTRANCES
                and all(board[n] == EMPTY for n in NEIGHBOURS[neighbour])
            ):
                hand[board[neighbour]] += 1
                board[neighbour] = EMPTY

    def squares(self, board: list[int], colour: int, k: int) -> list[int]:
        self.work += len(self.playable)
        return [sq for sq in self.playable if board[sq] == EMPTY and fits(board, sq, colour, k)]

    def can_place(self, board: list[int], hand: list[int], colour: int) -> bool:
        self.work += len(self.playable)
        return bool(hand[colour]) and any(board[sq] == EMPTY and fits(board, sq, colour, 1) for sq in self.playable)

    def seat_hand(self, hand: list[int], seat: int) -> int:
        return sum(hand[colour] for colour in colours_of(seat, self.players))

    def points(self, board: list[int]) -> list[int]:
        points = [0] * self.players
        for square, colour in enumerate(board):
            if colour >= 0:
                points[colour % self.players] += 2 if CRESCENT_COLOUR.get(square) == colour else 1
        return points
