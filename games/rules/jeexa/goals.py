"""The goal of each of the six hands, and the points of the best set that meets it.

"Joined" always means tab in slot. A trio, pair, quartet or quintet is that many pieces of
one colour (value) connected by joins among themselves; other colours in between do not
connect them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from games.rules.jeexa.grid import Cell, Grid, links

HANDS = 6
STAIRCASE_HAND = 4
SAME_COLOUR = {1: 3, 2: 2, 3: 4, 5: 5}  # hand -> pieces of one colour joined together
STEPS = 4  # pieces in a staircase
STAIRCASE_STARTS = (3, 2, 1)  # highest first: 3-4-5-6 scores most
BIG, SMALL = 4, 3  # hand six: a quartet and a separate trio

GOAL_NAMES = {1: "trio", 2: "pair", 3: "quartet", 4: "staircase", 5: "quintet", 6: "quartet and trio"}
GOAL_TEXT = {
    1: "Trio: 3 pieces of one colour joined together",
    2: "Pair: 2 pieces of one colour joined",
    3: "Quartet: 4 pieces of one colour joined together",
    4: "Staircase: 4 pieces of consecutive values (1-2-3-4, 2-3-4-5 or 3-4-5-6), each joined to the next",
    5: "Quintet: 5 pieces of one colour joined together",
    6: "4 pieces of one colour joined together, and a separate trio of 3 of one colour",
}


@dataclass(frozen=True)
class Goal:
    points: int
    cells: tuple[Cell, ...]


Component = tuple[int, list[Cell]]  # value, cells in breadth-first order


def components(grid: Grid) -> list[Component]:
    """Groups of same-coloured pieces connected by joins among themselves.

    Cells come in breadth-first order, so every prefix of a group is itself connected:
    the first ``k`` cells of a group of at least ``k`` are a valid set of ``k``.
    """
    graph = links(grid)
    seen: set[Cell] = set()
    found = []
    for start in sorted(grid, key=lambda c: (c[1], c[0])):
        if start in seen:
            continue
        value = grid[start][0]
        order = [start]
        seen.add(start)
        for cell in order:  # grows while iterating: a breadth-first walk
            for other in graph[cell]:
                if other not in seen and grid[other][0] == value:
                    seen.add(other)
                    order.append(other)
        found.append((value, order))
    return found


def achieved(hand: int, grid: Grid) -> Goal | None:
    """The best set meeting the hand's goal (most points), or ``None``."""
    if hand in SAME_COLOUR:
        return _same_colour(components(grid), SAME_COLOUR[hand])
    if hand == STAIRCASE_HAND:
        return _staircase(grid)
    return _quartet_and_trio(grid)


def _same_colour(groups: list[Component], size: int) -> Goal | None:
    big = [(value, cells) for value, cells in groups if len(cells) >= size]
    if not big:
        return None
    value, cells = max(big, key=lambda group: group[0])
    return Goal(size * value, tuple(cells[:size]))


def _staircase(grid: Grid) -> Goal | None:
    graph = links(grid)
    for low in STAIRCASE_STARTS:
        for start in sorted(grid):
            if grid[start][0] == low and (path := _climb(grid, graph, [start])):
                return Goal(sum(grid[cell][0] for cell in path), tuple(path))
    return None


def _climb(grid: Grid, graph: dict[Cell, list[Cell]], path: list[Cell]) -> list[Cell] | None:
    """Extend ``path`` by joined pieces one value higher each, to four steps."""
    if len(path) == STEPS:
        return path
    wanted = grid[path[-1]][0] + 1
    for other in sorted(graph[path[-1]]):
        if grid[other][0] == wanted and (done := _climb(grid, graph, [*path, other])):
            return done
    return None


def _quartet_and_trio(grid: Grid) -> Goal | None:
    groups = components(grid)
    best: Goal | None = None
    for i, (big_value, big_cells) in enumerate(groups):
        if len(big_cells) < BIG:
            continue
        for j, (small_value, small_cells) in enumerate(groups):
            if i != j and len(small_cells) >= SMALL:
                best = _better(
                    best, Goal(BIG * big_value + SMALL * small_value, (*big_cells[:BIG], *small_cells[:SMALL]))
                )
        if len(big_cells) >= BIG + SMALL and (split := _split(grid, big_cells)):
            best = _better(best, Goal((BIG + SMALL) * big_value, split))
    return best


def _better(best: Goal | None, other: Goal) -> Goal:
    return other if best is None or other.points > best.points else best


def _split(grid: Grid, cells: list[Cell]) -> tuple[Cell, ...] | None:
    """A connected 4 and a connected 3 inside one group, sharing no piece, if there are."""
    members = set(cells)
    graph = {cell: [o for o in partners if o in members] for cell, partners in links(grid).items() if cell in members}
    for four in _connected_sets(graph, BIG):
        rest = {cell: [o for o in graph[cell] if o not in four] for cell in graph if cell not in four}
        for part in _parts(rest):
            if len(part) >= SMALL:
                return (*sorted(four), *part[:SMALL])
    return None


def _connected_sets(graph: dict[Cell, list[Cell]], size: int) -> Iterable[frozenset[Cell]]:
    """Every connected set of ``size`` cells, each once, in a repeatable order."""
    level = {frozenset([cell]) for cell in graph}
    for _ in range(size - 1):
        level = {group | {o} for group in level for cell in group for o in graph[cell] if o not in group}
    return sorted(level, key=sorted)


def _parts(graph: dict[Cell, list[Cell]]) -> list[list[Cell]]:
    """Connected parts of a graph, cells in breadth-first order."""
    seen: set[Cell] = set()
    parts = []
    for start in sorted(graph):
        if start in seen:
            continue
        order = [start]
        seen.add(start)
        for cell in order:
            for other in graph[cell]:
                if other not in seen:
                    seen.add(other)
                    order.append(other)
        parts.append(order)
    return parts


def partial(hand: int, grid: Grid) -> Goal:
    """What a player who did not win the hand scores: the best partial goal. For the colour goals
    the most valuable group (of one colour, joined among themselves; a single piece is a group of
    one); for the staircase the most valuable path of consecutive values, each joined to the next
    (one to three pieces); for hand six two different groups counted up to 4 and 3 pieces (one
    group, up to 4, when there is only one). Nothing for an empty puzzle."""
    if not grid:
        return Goal(0, ())
    if hand == STAIRCASE_HAND:
        return _best_path(grid)
    groups = components(grid)
    if hand in SAME_COLOUR:
        value, cells = max(groups, key=lambda group: (len(group[1]) * group[0], group[0]))
        return Goal(len(cells) * value, tuple(cells))
    best = Goal(0, ())
    for i, (big_value, big_cells) in enumerate(groups):
        big = big_cells[:BIG]
        best = _better(best, Goal(len(big) * big_value, tuple(big)))
        for j, (small_value, small_cells) in enumerate(groups):
            if i != j:
                small = small_cells[:SMALL]
                best = _better(best, Goal(len(big) * big_value + len(small) * small_value, (*big, *small)))
    return best


def _best_path(grid: Grid) -> Goal:
    """The most valuable path of consecutive values, each piece joined to the next, of at most
    ``STEPS - 1`` pieces (four would be the staircase itself)."""
    graph = links(grid)
    best = Goal(0, ())

    def walk(path: list[Cell]) -> None:
        nonlocal best
        best = _better(best, Goal(sum(grid[cell][0] for cell in path), tuple(path)))
        if len(path) < STEPS - 1:
            wanted = grid[path[-1]][0] + 1
            for other in sorted(graph[path[-1]]):
                if grid[other][0] == wanted:
                    walk([*path, other])

    for start in sorted(grid):
        walk([start])
    return best
