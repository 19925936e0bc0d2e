"""What a puzzle is worth towards the hand under way, for the strong AI (``ai.Strong``).

A puzzle's *candidates* are the sets it could complete the goal from: each group of one colour
(hands 1, 2, 3 and 5), each path of consecutive values (hand 4), each pair of groups (hand 6).
A candidate missing ``m`` pieces completes with a rough chance of ``theta ** m`` (``theta`` falls
with the number of players: more rivals to race), less when no empty cell lets the piece it needs
join it, or when the pile has none of that value left. The puzzle's worth is the expected score of
the hand: the goal and the bonus with the chance of completing it, the best partial goal otherwise.

Every empty cell next to the puzzle is read once per value and turn: which pieces it would join
tells which candidates are open, and what a piece of each value would make at its best cell (its
*gain*: the worth it adds, or the whole goal when it completes it). A joker's worth is the gain of
the piece it can steal. All of it is exact arithmetic on the puzzle: no randomness, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from games.rules.jeexa.goals import BIG, SAME_COLOUR, SMALL, STAIRCASE_HAND, STEPS, partial
from games.rules.jeexa.grid import Cell, Grid, frontier, links
from games.rules.jeexa.pieces import DIRECTIONS, FORBIDDEN, GAP, JOIN, ORIENTATIONS, SIDES, VALUES, contact
from games.rules.jeexa.rules import WIN_BONUS

THETA = {2: 0.5, 3: 0.42, 4: 0.38}  # players -> chance per missing piece; fewer rivals, more time
THETA_MANY = 0.33  # five players and more
SHUT = 0.05  # share of the chance left to a candidate no empty cell lets grow (only thefts reopen it)
ONE_WAY = 0.7  # share left when a single cell lets it grow: one misplaced piece shuts it
SCARCE = 0.5  # share left when the pile holds fewer pieces of the value than are missing
NONE_LEFT = 0.15  # share left when the pile holds none: only a joker can bring it
COUNTED = 3  # candidates that count towards the worth, the most promising first
PAIRS_OF = 6  # hand six: the groups paired, the biggest first
DIE_FACES = 6

Combo = tuple[tuple[int, ...], int]  # directions joined, gaps made


@dataclass(frozen=True)
class Reading:
    """A puzzle's worth in points for the hand under way."""

    worth: float  # expected score: completing with the candidates' chance, else the partial goal
    gains: tuple[float, ...]  # per value 1..6: what a piece of it adds at its best cell now
    completes: tuple[bool, ...]  # per value: a piece of it completes the goal at once
    next_jokers: float  # jokers the next roll can earn, on average


class Appraiser:
    """Reads puzzles for one hand, pile and table size."""

    def __init__(self, hand: int, players: int, pile: tuple[int, ...]) -> None:
        self.hand = hand
        self.theta = THETA.get(players, THETA_MANY)
        self.pile = pile
        self.chances = [1 / DIE_FACES if count else 0.0 for count in pile]

    def goal_worth(self, value: int) -> float:
        """Roughly what completing the goal with pieces of ``value`` scores."""
        if self.hand in SAME_COLOUR:
            return SAME_COLOUR[self.hand] * value + WIN_BONUS
        if self.hand == STAIRCASE_HAND:
            low = min(3, max(1, value - 1))
            return STEPS * low + 6 + WIN_BONUS
        return BIG * value + SMALL * 3.5 + WIN_BONUS

    def chance(self, missing: int, ways: int, supply: float) -> float:
        """Rough chance that a candidate missing ``missing`` pieces completes the goal."""
        return 1.0 if missing <= 0 else float(self.theta**missing) * _share(ways, supply)

    def supply(self, value: int, missing: int) -> float:
        count = self.pile[value - 1] if 1 <= value <= len(self.pile) else 0
        return 1.0 if count >= missing else SCARCE if count else NONE_LEFT

    def read(self, grid: Grid) -> Reading:
        shape = _Shape(grid, self.hand == STAIRCASE_HAND)
        if self.hand in SAME_COLOUR:
            candidates, gains, completes = self._colour(shape, SAME_COLOUR[self.hand])
        elif self.hand == STAIRCASE_HAND:
            candidates, gains, completes = self._staircase(shape)
        else:
            candidates, gains, completes = self._quartet_and_trio(shape)
        points = partial(self.hand, grid).points
        expected, rest = 0.0, 1.0
        for p, worth in sorted(candidates, key=lambda c: c[0] * c[1], reverse=True)[:COUNTED]:
            expected += rest * p * worth
            rest *= 1 - p
        worth = expected + rest * points
        next_jokers = sum(chance * max(0, gaps) for chance, gaps in zip(self.chances, shape.best_gaps, strict=True))
        added = tuple(self.goal_worth(v) - worth if completes[v - 1] else gains[v - 1] for v in VALUES)
        return Reading(worth, added, tuple(completes), next_jokers)

    # --- the goals ---------------------------------------------------------------------

    def _colour(self, shape: _Shape, size: int) -> tuple[list[tuple[float, float]], list[float], list[bool]]:
        """Hands 1, 2, 3 and 5: every group is a candidate; a piece joining groups of its colour merges them."""
        candidates = []
        for gid, (value, count) in enumerate(shape.groups):
            missing = size - count
            ways = len(shape.open_same.get(gid, ()))
            candidates.append((self.chance(missing, ways, self.supply(value, missing)), self.goal_worth(value)))
        gains, completes = [0.0] * 6, [False] * 6
        for value, merged in shape.merges():
            new = 1 + sum(shape.groups[gid][1] for gid in merged)
            old = max((shape.groups[gid][1] for gid in merged), default=0)
            completes[value - 1] |= new >= size
            gain = self._growth(value, size - new, size - old)
            gains[value - 1] = max(gains[value - 1], gain)
        return candidates, gains, completes

    def _staircase(self, shape: _Shape) -> tuple[list[tuple[float, float]], list[float], list[bool]]:
        """Hand 4: every path of consecutive values (its top and the run below it) is a candidate."""
        candidates = []
        for top, (length, bottom) in shape.down.items():
            high = shape.grid[top][0]
            low = high - length + 1
            ends = []
            if high < max(VALUES) and top in shape.open_up:
                ends.append(high + 1)
            if low > 1 and bottom in shape.open_down:
                ends.append(low - 1)
            supply = max((self.supply(value, 1) for value in ends), default=1.0)
            worth = float(STEPS * min(low, 3) + 6 + WIN_BONUS)
            candidates.append((self.chance(STEPS - length, len(ends), supply), worth))
        gains, completes = [0.0] * 6, [False] * 6
        for value, below, above in shape.extensions():
            new = 1 + below + above
            completes[value - 1] |= new >= STEPS
            gains[value - 1] = max(gains[value - 1], self._growth(value, STEPS - new, STEPS - max(below, above)))
        return candidates, gains, completes

    def _quartet_and_trio(self, shape: _Shape) -> tuple[list[tuple[float, float]], list[float], list[bool]]:
        """Hand 6: pairs of groups, one to grow to 4 and one to 3 (or one group of 7 to split)."""
        groups = sorted(range(len(shape.groups)), key=lambda g: (min(shape.groups[g][1], BIG), shape.groups[g][0]))
        top = groups[::-1][:PAIRS_OF]
        candidates = []

        def share(gid: int, size: int) -> tuple[int, float]:
            value, count = shape.groups[gid]
            missing = max(0, size - count)
            if not missing:
                return 0, 1.0
            return missing, _share(len(shape.open_same.get(gid, ())), self.supply(value, missing))

        for big in top:
            big_missing, big_share = share(big, BIG)
            for small in top:
                if small != big:
                    small_missing, small_share = share(small, SMALL)
                    worth = BIG * shape.groups[big][0] + SMALL * shape.groups[small][0] + WIN_BONUS
                    p = self.theta ** (big_missing + small_missing) * big_share * small_share
                    candidates.append((p, float(worth)))
            if shape.groups[big][1] >= BIG:
                missing, single = share(big, BIG + SMALL)
                candidates.append(
                    (self.theta**missing * single, float((BIG + SMALL) * shape.groups[big][0] + WIN_BONUS))
                )
        sizes = sorted(((count, gid) for gid, (_value, count) in enumerate(shape.groups)), reverse=True)
        gains, completes = [0.0] * 6, [False] * 6
        for value, merged in shape.merges():
            new = 1 + sum(shape.groups[gid][1] for gid in merged)
            other = next((count for count, gid in sizes if gid not in merged), 0)
            done = (new >= BIG and other >= SMALL) or (new >= SMALL and other >= BIG) or new >= BIG + SMALL
            completes[value - 1] |= done
            old = max((shape.groups[gid][1] for gid in merged), default=0)
            gains[value - 1] = max(gains[value - 1], self._growth(value, BIG - new, BIG - old))
        return candidates, gains, completes

    def _growth(self, value: int, missing_after: int, missing_before: int) -> float:
        """What growing a candidate of ``value`` from ``missing_before`` to ``missing_after`` adds."""
        worth = self.goal_worth(value)
        after = self.theta ** max(0, missing_after)
        before = self.theta ** max(0, missing_before)
        return max(0.0, (after - before) * worth) + value / DIE_FACES


class _Shape:
    """A puzzle's groups (or paths), and what each empty cell next to it could join."""

    def __init__(self, grid: Grid, paths: bool) -> None:
        self.grid = grid
        self.graph = links(grid)
        self.group_of: dict[Cell, int] = {}
        self.groups: list[tuple[int, int]] = []  # gid -> (value, pieces)
        self._find_groups()
        self.down: dict[Cell, tuple[int, Cell]] = {}  # cell -> longest run down from it, and its bottom
        self.up: dict[Cell, int] = {}
        if paths:
            for cell in grid:
                self._down(cell)
                self._up(cell)
        self.open_same: dict[int, set[Cell]] = {}  # gid -> empty cells where its colour would join it
        self.open_up: set[Cell] = set()  # pieces a piece one value higher could join
        self.open_down: set[Cell] = set()
        self.best_gaps = [-1] * 6  # per value: the most gaps a fitting piece of it would make
        self.spots: list[tuple[int, list[Cell]]] = []  # (value, cells it would join) per fitting placement
        self._read_spots()

    def _find_groups(self) -> None:
        for start in self.grid:
            if start in self.group_of:
                continue
            value = self.grid[start][0]
            gid = len(self.groups)
            self.group_of[start] = gid
            order = [start]
            for cell in order:  # grows while iterating: a breadth-first walk
                for other in self.graph[cell]:
                    if other not in self.group_of and self.grid[other][0] == value:
                        self.group_of[other] = gid
                        order.append(other)
            self.groups.append((value, len(order)))

    def _down(self, cell: Cell) -> tuple[int, Cell]:
        if cell not in self.down:
            wanted = self.grid[cell][0] - 1
            runs = [self._down(o) for o in self.graph[cell] if self.grid[o][0] == wanted]
            length, bottom = max(runs, default=(0, cell))
            self.down[cell] = (min(STEPS, length + 1), bottom)
        return self.down[cell]

    def _up(self, cell: Cell) -> int:
        if cell not in self.up:
            wanted = self.grid[cell][0] + 1
            self.up[cell] = min(
                STEPS, 1 + max((self._up(o) for o in self.graph[cell] if self.grid[o][0] == wanted), default=0)
            )
        return self.up[cell]

    def _read_spots(self) -> None:
        grid = self.grid
        for cell in frontier(grid):
            x, y = cell
            around = [(x + dx, y + dy) for dx, dy in DIRECTIONS]
            facing = tuple(None if c not in grid else SIDES[grid[c]][(d + 2) % 4] for d, c in enumerate(around))
            for value, combos in zip(VALUES, _combos(facing), strict=True):
                for directions, gaps in combos:
                    self.best_gaps[value - 1] = max(self.best_gaps[value - 1], gaps)
                    joined = [around[d] for d in directions]
                    self.spots.append((value, joined))
                    for other in joined:
                        theirs = grid[other][0]
                        if theirs == value:
                            self.open_same.setdefault(self.group_of[other], set()).add(cell)
                        elif theirs == value - 1:
                            self.open_up.add(other)
                        elif theirs == value + 1:
                            self.open_down.add(other)

    def merges(self) -> Iterable[tuple[int, set[int]]]:
        """Per fitting placement: the value placed and the groups of its colour it would join."""
        for value, joined in self.spots:
            yield value, {self.group_of[c] for c in joined if self.grid[c][0] == value}

    def extensions(self) -> Iterable[tuple[int, int, int]]:
        """Per fitting placement: the value placed, the longest run it would extend from below and from above."""
        for value, joined in self.spots:
            below = max((self.down[c][0] for c in joined if self.grid[c][0] == value - 1), default=0)
            above = max((self.up[c] for c in joined if self.grid[c][0] == value + 1), default=0)
            yield value, below, above


def _share(ways: int, supply: float) -> float:
    """What is left of a candidate's chance with ``ways`` cells to grow by and the pile's ``supply``."""
    return (SHUT, ONE_WAY, 1.0)[min(ways, 2)] * supply


@cache
def _combos(facing: tuple[int | None, ...]) -> tuple[tuple[Combo, ...], ...]:
    """Per value: each fitting turn on a cell with these neighbours, as (directions joined, gaps)."""
    per_value = []
    for value in VALUES:
        found = []
        for rotation in ORIENTATIONS[value]:
            mine = SIDES[value, rotation]
            made = [(d, contact(mine[d], side)) for d, side in enumerate(facing) if side is not None]
            kinds = [kind for _d, kind in made]
            if FORBIDDEN not in kinds and JOIN in kinds:
                found.append((tuple(d for d, kind in made if kind == JOIN), kinds.count(GAP)))
        per_value.append(tuple(found))
    return tuple(per_value)
