"""One player's puzzle: where a piece may go, what it joins, which pieces may be stolen.

A grid is a dict ``(x, y) -> (value, rotation)``; the state stores it as a sorted tuple
of ``(x, y, value, rotation)`` and turns it into a dict when it needs to look things up.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.rules.jeexa.pieces import DIRECTIONS, FORBIDDEN, GAP, JOIN, ORIENTATIONS, SIDES, contact

Cell = tuple[int, int]
Grid = dict[Cell, tuple[int, int]]
Piece = tuple[int, int, int, int]  # x, y, value, rotation
Placement = tuple[int, int, int]  # x, y, rotation

# A piece placed freely goes on an empty cell at most this far outside the puzzle's bounding
# box: far enough to leave a one-cell hole to fill later, finite so it can be listed.
FREE_MARGIN = 2
FIRST_CELL = (0, 0)

FIRST, FIT, FREE = "first", "fit", "free"


def grid_of(pieces: Iterable[Piece]) -> Grid:
    return {(x, y): (value, rotation) for x, y, value, rotation in pieces}


def pieces_of(grid: Grid) -> tuple[Piece, ...]:
    """The stored form: sorted row by row so equal puzzles compare equal."""
    return tuple(sorted(((x, y, v, r) for (x, y), (v, r) in grid.items()), key=lambda p: (p[1], p[0])))


def neighbours(grid: Grid, cell: Cell) -> Iterable[tuple[int, Cell]]:
    """``(direction, neighbour cell)`` for every occupied neighbour of ``cell``."""
    x, y = cell
    for d, (dx, dy) in enumerate(DIRECTIONS):
        other = (x + dx, y + dy)
        if other in grid:
            yield d, other


def contacts(grid: Grid, cell: Cell, value: int, rotation: int) -> list[str]:
    """What the piece would make with each neighbour if placed on ``cell``."""
    mine = SIDES[value, rotation]
    return [contact(mine[d], SIDES[grid[other]][(d + 2) % 4]) for d, other in neighbours(grid, cell)]


def assess(grid: Grid, cell: Cell, value: int, rotation: int) -> tuple[int, int] | None:
    """``(joins, gaps)`` of a placement, or ``None`` when it makes a forbidden contact."""
    made = contacts(grid, cell, value, rotation)
    if FORBIDDEN in made:
        return None
    return made.count(JOIN), made.count(GAP)


def frontier(grid: Grid) -> set[Cell]:
    """Empty cells next to a piece: the only cells where a piece can fit."""
    cells = set()
    for x, y in grid:
        for dx, dy in DIRECTIONS:
            cell = (x + dx, y + dy)
            if cell not in grid:
                cells.add(cell)
    return cells


def free_cells(grid: Grid) -> list[Cell]:
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    return [
        (x, y)
        for y in range(min(ys) - FREE_MARGIN, max(ys) + FREE_MARGIN + 1)
        for x in range(min(xs) - FREE_MARGIN, max(xs) + FREE_MARGIN + 1)
        if (x, y) not in grid
    ]


def fitting(grid: Grid, value: int) -> list[Placement]:
    """Placements that make at least one join and no forbidden contact."""
    found = []
    for cell in sorted(frontier(grid)):  # a set: sorted so every caller sees one repeatable order
        for rotation in ORIENTATIONS[value]:
            result = assess(grid, cell, value, rotation)
            if result and result[0]:
                found.append((*cell, rotation))
    return found


def placements(grid: Grid, value: int) -> tuple[list[Placement], str]:
    """Every legal placement of ``value`` and which rule allows it (first, fit or free)."""
    if not grid:
        return [(*FIRST_CELL, rotation) for rotation in ORIENTATIONS[value]], FIRST
    found = fitting(grid, value)
    if found:
        return found, FIT
    # Nothing fits: anywhere near the puzzle, as long as no tab meets a flat side or a tab.
    free = [
        (*cell, rotation)
        for cell in free_cells(grid)
        for rotation in ORIENTATIONS[value]
        if assess(grid, cell, value, rotation) is not None
    ]
    return free, FREE


def joined(grid: Grid, cell: Cell) -> list[Cell]:
    """The neighbours ``cell`` is joined to (tab in slot)."""
    mine = SIDES[grid[cell]]
    return [other for d, other in neighbours(grid, cell) if mine[d] * SIDES[grid[other]][(d + 2) % 4] == -1]


def links(grid: Grid) -> dict[Cell, list[Cell]]:
    return {cell: joined(grid, cell) for cell in grid}


def linked_points(grid: Grid) -> int:
    """Points of the pieces with at least one join: what a player who did not win scores."""
    return sum(grid[cell][0] for cell, partners in links(grid).items() if partners)


def steal_targets(grid: Grid) -> list[Cell]:
    """Pieces at one end of a chain whose removal leaves no loose piece."""
    graph = links(grid)
    return [cell for cell, partners in graph.items() if len(partners) == 1 and len(graph[partners[0]]) >= 2]


def placed(grid: Grid, cell: Cell, value: int, rotation: int) -> Grid:
    new = dict(grid)
    new[cell] = (value, rotation)
    return new


def removed(grid: Grid, cell: Cell) -> Grid:
    new = dict(grid)
    del new[cell]
    return new
