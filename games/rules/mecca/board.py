"""The compound: an 11 × 11 grid drawn exactly as in docs/rules/mecca.md ("The compound").

Squares are numbered ``row * 11 + column`` from the top left; the notation names them
``a1`` (top left) to ``k11`` (bottom right). The picture below is parsed at import time,
so the geometry the rules use is that drawing and nothing else.
"""

from __future__ import annotations

SIZE = 11
SQUARES = SIZE * SIZE
FILES = "abcdefghijk"

COLOURS = ("yellow", "red", "green", "blue", "black", "white")
LETTERS = "YRGBKW"  # colour-blind safe letters: K for black, as in printing

# The picture of docs/rules/mecca.md, one character per square:
#   p purple mat   . red mat   : yellow mat   * close to the Kaaba   # Kaaba
#   1-6 entrance E1-E6   Y R G B K W crescent of that colour
PICTURE = (
    "pppp:1:pppp",
    "ppp.....ppp",
    "ppY:G:B:Rpp",
    "p.:*****:.p",
    "2.K*###*W.6",
    ":.:*###*:.:",
    "3.W*###*K.5",
    "p.:*****:.p",
    "ppR:B:G:Ypp",
    "ppp.....ppp",
    "pppp:4:pppp",
)


def square_name(square: int) -> str:
    row, column = divmod(square, SIZE)
    return f"{FILES[column]}{row + 1}"


def square_index(name: str) -> int | None:
    """The square called ``name`` (``f3``), or None when no square has that name. Rows are
    ASCII digits only: ``str.isdigit`` also takes "²" (which ``int`` refuses) and "٥"."""
    digits = name[1:]
    if len(name) < 2 or name[0] not in FILES or not (digits.isascii() and digits.isdigit()) or name[1] == "0":
        return None
    row = int(digits) - 1
    return row * SIZE + FILES.index(name[0]) if row < SIZE else None


def _squares_marked(marks: str) -> frozenset[int]:
    return frozenset(
        row * SIZE + column for row, line in enumerate(PICTURE) for column, mark in enumerate(line) if mark in marks
    )


def _neighbours(square: int) -> tuple[int, ...]:
    """The eight surrounding squares ("next, even if diagonally"), fewer on the edges."""
    row, column = divmod(square, SIZE)
    return tuple(
        r * SIZE + c
        for r in (row - 1, row, row + 1)
        for c in (column - 1, column, column + 1)
        if (r, c) != (row, column) and 0 <= r < SIZE and 0 <= c < SIZE
    )


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(square) for square in range(SQUARES))
KAABA = _squares_marked("#")
PURPLE = _squares_marked("p")
CLOSE_TO_KAABA = _squares_marked("*")
# Entrance squares E1..E6, in counter-clockwise order from the top door.
ENTRANCES: tuple[int, ...] = tuple(next(iter(_squares_marked(str(n)))) for n in range(1, 7))
# Crescent squares per colour index.
CRESCENTS: tuple[frozenset[int], ...] = tuple(_squares_marked(letter) for letter in LETTERS)
CRESCENT_COLOUR: dict[int, int] = {square: colour for colour, squares in enumerate(CRESCENTS) for square in squares}
RED_MATS = _squares_marked(".")


def mat(square: int) -> str:
    """What is printed on a square, for drawing: kaaba, entrance, purple, ring, crescent, red, yellow."""
    if square in KAABA:
        return "kaaba"
    if square in ENTRANCES:
        return "entrance"
    if square in PURPLE:
        return "purple"
    if square in CLOSE_TO_KAABA:
        return "ring"
    if square in CRESCENT_COLOUR:
        return "crescent"
    return "red" if square in RED_MATS else "yellow"


def playable_squares(colours: int) -> tuple[int, ...]:
    """Squares a pilgrim may be placed on after set-up: never the Kaaba or an entrance,
    and the purple mats only when 5 or 6 colours are in play."""
    excluded = KAABA | set(ENTRANCES) | (PURPLE if colours == 4 else frozenset())
    return tuple(square for square in range(SQUARES) if square not in excluded)
