"""A Mecca position kept with running counts, for the strong AI's searches and playouts.

The rules of ``rules.py`` ask each square's eight neighbours every time; the AI asks the same
questions hundreds of thousands of times a move. Here every square keeps its neighbours
counted, in all and per colour, and how many colours it sees twice, so the placement test
and the removal test are a few lookups; each seat's points, pilgrims close to the Kaaba and
removable pilgrims are kept as totals. All of it changes only around the square a pilgrim
lands on or leaves, so ``put`` and ``lift`` (and ``take_away``/``undo`` for a removal) move
a search forwards and back without copying the board.
"""

from __future__ import annotations

from games.rules.mecca.board import CLOSE_TO_KAABA, CRESCENT_COLOUR, ENTRANCES, NEIGHBOURS, SQUARES
from games.rules.mecca.rules import EMPTY, max_per_turn, playable

ENTRANCE_SQUARES = frozenset(ENTRANCES)
MOST_AROUND = max_per_turn(6)  # the k-th pilgrim of a turn touches exactly k pilgrims


class Counts:
    """``around[sq]`` pilgrims next to sq, ``seen[sq * colours + c]`` of them of colour c,
    ``twice[sq]`` the colours seen two or more times (a pilgrim there is removable; an empty
    square there takes no pilgrim). Per seat: ``points`` (crescents count twice), ``kaaba``
    (pilgrims close to the Kaaba) and ``exposed`` (its removable pilgrims). ``open`` holds the
    empty playable squares next to one to five pilgrims (five: the most placements in a turn),
    the only ones that can take a pilgrim: a few dozen of the board's squares, so the questions asked of every position
    look at those alone."""

    def __init__(self, board: tuple[int, ...] | list[int], hand: tuple[int, ...] | list[int], players: int) -> None:
        self.colours = len(hand)
        self.players = players
        self.owner = [colour % players for colour in range(self.colours)]
        self.playable = playable(self.colours)
        self.in_play = frozenset(self.playable)
        self.open: set[int] = set()
        self.cells = [EMPTY] * SQUARES
        self.around = [0] * SQUARES
        self.seen = [0] * (SQUARES * self.colours)
        self.twice = [0] * SQUARES
        self.hand = list(hand)
        self.points = [0] * players
        self.kaaba = [0] * players
        self.exposed = [0] * players
        for square, colour in enumerate(board):
            if colour != EMPTY:
                self._stand(square, colour)

    def copy(self) -> Counts:
        other = object.__new__(Counts)
        other.colours, other.players, other.owner, other.playable, other.in_play = (
            self.colours, self.players, self.owner, self.playable, self.in_play)
        other.open = set(self.open)
        other.cells, other.around, other.seen, other.twice = (
            self.cells[:], self.around[:], self.seen[:], self.twice[:])
        other.hand, other.points, other.kaaba, other.exposed = (
            self.hand[:], self.points[:], self.kaaba[:], self.exposed[:])
        return other

    def board(self) -> tuple[int, ...]:
        return tuple(self.cells)

    # --- moving -------------------------------------------------------------------------

    def put(self, square: int, colour: int) -> None:
        """A pilgrim of ``colour`` from its hand onto the empty ``square``."""
        self._stand(square, colour)
        self.hand[colour] -= 1

    def lift(self, square: int) -> int:
        """The pilgrim on ``square`` back to its hand; returns its colour."""
        colour = self.cells[square]
        cells, around, seen, twice, exposed, owner = (
            self.cells, self.around, self.seen, self.twice, self.exposed, self.owner)
        seat = owner[colour]
        if twice[square] and square not in ENTRANCE_SQUARES:
            exposed[seat] -= 1
        cells[square] = EMPTY
        colours, open_, in_play = self.colours, self.open, self.in_play
        for neighbour in NEIGHBOURS[square]:
            around[neighbour] -= 1
            if not around[neighbour]:
                open_.discard(neighbour)
            elif around[neighbour] == MOST_AROUND and cells[neighbour] == EMPTY and neighbour in in_play:
                open_.add(neighbour)
            index = neighbour * colours + colour
            seen[index] -= 1
            if seen[index] == 1:
                twice[neighbour] -= 1
                if not twice[neighbour] and cells[neighbour] != EMPTY and neighbour not in ENTRANCE_SQUARES:
                    exposed[owner[cells[neighbour]]] -= 1
        self.points[seat] -= 2 if CRESCENT_COLOUR.get(square) == colour else 1
        if square in CLOSE_TO_KAABA:
            self.kaaba[seat] -= 1
        if 0 < around[square] <= MOST_AROUND and square in in_play:
            open_.add(square)
        self.hand[colour] += 1
        return colour

    def take_away(self, square: int) -> list[tuple[int, int]]:
        """The removal of the pilgrim on ``square`` and of every pilgrim it leaves isolated
        (only its neighbours can have lost their last neighbour; entrance pilgrims stay).
        Returns what went back, ``(square, colour)``, for ``undo``."""
        gone = [(square, self.lift(square))]
        cells, around = self.cells, self.around
        for neighbour in NEIGHBOURS[square]:
            if cells[neighbour] != EMPTY and not around[neighbour] and neighbour not in ENTRANCE_SQUARES:
                gone.append((neighbour, self.lift(neighbour)))
        return gone

    def undo(self, gone: list[tuple[int, int]]) -> None:
        for square, colour in reversed(gone):
            self.put(square, colour)

    def _stand(self, square: int, colour: int) -> None:
        cells, around, seen, twice, exposed, owner = (
            self.cells, self.around, self.seen, self.twice, self.exposed, self.owner)
        seat = owner[colour]
        cells[square] = colour
        colours, open_ = self.colours, self.open
        open_.discard(square)
        for neighbour in NEIGHBOURS[square]:
            around[neighbour] += 1
            if around[neighbour] == 1:
                if cells[neighbour] == EMPTY and neighbour in self.in_play:
                    open_.add(neighbour)
            elif around[neighbour] == MOST_AROUND + 1:
                open_.discard(neighbour)
            index = neighbour * colours + colour
            seen[index] += 1
            if seen[index] == 2:
                twice[neighbour] += 1
                if twice[neighbour] == 1 and cells[neighbour] != EMPTY and neighbour not in ENTRANCE_SQUARES:
                    exposed[owner[cells[neighbour]]] += 1
        if twice[square] and square not in ENTRANCE_SQUARES:
            exposed[seat] += 1
        self.points[seat] += 2 if CRESCENT_COLOUR.get(square) == colour else 1
        if square in CLOSE_TO_KAABA:
            self.kaaba[seat] += 1

    # --- asking -------------------------------------------------------------------------

    def squares(self, colour: int, k: int) -> list[int]:
        """The k-th pilgrim's squares for ``colour``, in the order of the board:
        the test of ``rules.fits``, read off the counts."""
        around, twice, seen, colours = self.around, self.twice, self.seen, self.colours
        return sorted(
            square
            for square in self.open
            if around[square] == k and not twice[square] and not seen[square * colours + colour]
        )

    def removable(self) -> list[int]:
        """The pilgrims a removal may take: next to two of one colour, not on an entrance."""
        cells, twice = self.cells, self.twice
        return [
            square for square in range(SQUARES)
            if cells[square] != EMPTY and twice[square] and square not in ENTRANCE_SQUARES
        ]

    def able(self, order: tuple[int, ...]) -> set[int]:
        """The colours of ``order`` that could start a turn: a pilgrim in hand and a square
        next to exactly one pilgrim, of another colour."""
        cells, around = self.cells, self.around
        lone: set[int] = set()  # the colours of the lone neighbours of such squares
        for square in self.open:
            if around[square] == 1:
                lone.add(next(cells[n] for n in NEIGHBOURS[square] if cells[n] != EMPTY))
                if len(lone) > 1:
                    break
        if not lone:
            return set()
        hand = self.hand
        return {colour for colour in order if hand[colour] and (len(lone) > 1 or colour not in lone)}

    def fitting(self) -> list[list[int]]:
        """``[colour][k]``: the squares that would take a k-th pilgrim of colour, k = 1 to 3."""
        colours = self.colours
        fit = [[0, 0, 0, 0] for _ in range(colours)]
        around, twice, seen = self.around, self.twice, self.seen
        for square in self.open:
            count = around[square]
            if count < 4 and not twice[square]:
                base = square * colours
                for colour in range(colours):
                    if not seen[base + colour]:
                        fit[colour][count] += 1
        return fit
