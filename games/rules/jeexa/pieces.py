"""The six kinds of piece, their sides, and what two facing sides make.

A piece fills one square cell. Each of its four sides is an outlet (tab, ``OUT``), an
inlet (slot, ``IN``) or flat (``FLAT``), listed clockwise from north before turning.
"""

from __future__ import annotations

OUT, IN, FLAT = 1, -1, 0
VALUES = (1, 2, 3, 4, 5, 6)
ROTATIONS = (0, 90, 180, 270)
PIECES_PER_VALUE = 10  # of one set: 60 pieces
MAX_SETS = 2

# value -> sides N, E, S, W (the spec's table)
SHAPES: dict[int, tuple[int, int, int, int]] = {
    1: (OUT, IN, FLAT, FLAT),
    2: (OUT, FLAT, IN, FLAT),
    3: (OUT, OUT, IN, FLAT),
    4: (IN, IN, OUT, FLAT),
    5: (OUT, IN, OUT, IN),
    6: (OUT, OUT, IN, IN),
}
COLOURS = {1: "red", 2: "yellow", 3: "green", 4: "blue", 5: "orange", 6: "purple"}

# Directions in the order of the sides; y grows downwards, so north is y - 1.
DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))

JOIN, TOUCH, GAP, FORBIDDEN = "join", "touch", "gap", "forbidden"


def _turned(shape: tuple[int, int, int, int], rotation: int) -> tuple[int, ...]:
    """Sides after turning clockwise: what faced north now faces east after 90°."""
    steps = rotation // 90
    return tuple(shape[(i - steps) % 4] for i in range(4))


SIDES: dict[tuple[int, int], tuple[int, ...]] = {
    (value, rotation): _turned(shape, rotation) for value, shape in SHAPES.items() for rotation in ROTATIONS
}


def _distinct_rotations(value: int) -> tuple[int, ...]:
    """Rotations that look different: the orange piece (+ - + -) only has 0 and 90."""
    seen: dict[tuple[int, ...], int] = {}
    for rotation in ROTATIONS:
        seen.setdefault(SIDES[value, rotation], rotation)
    return tuple(seen.values())


ORIENTATIONS: dict[int, tuple[int, ...]] = {value: _distinct_rotations(value) for value in VALUES}


def contact(mine: int, theirs: int) -> str:
    """What two facing sides make (see the spec's table)."""
    if mine * theirs == -1:
        return JOIN
    if mine == OUT or theirs == OUT:
        return FORBIDDEN  # a tab against a flat side or against another tab has nowhere to go
    if mine == IN or theirs == IN:
        return GAP  # an inlet left open; two inlets facing each other are still one gap
    return TOUCH


def label(value: int) -> str:
    """How the log names a piece: ``green 3``; the number keeps it clear without the colour."""
    return f"{COLOURS[value]} {value}"


def a_label(value: int) -> str:
    article = "an" if COLOURS[value][0] in "aeiou" else "a"
    return f"{article} {label(value)}"
