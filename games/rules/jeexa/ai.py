"""Computer players. Both see only what a player at the table sees: the roll of the turn
under way, the pile and the puzzles; never the seed nor a future roll.

Level 1 ("Easy") plays like a beginner: it fits the piece where it makes the most joins
and jokers, with a lot of seeded noise, and steals the most valuable piece it may take.

Level 2 ("Strong") weighs each placement by what the position is worth for it afterwards:
the linked points, the jokers just earned (valued by the pieces it could steal), what the
next roll of each value would let it fit and how many jokers that would earn, its progress
towards the hand's goal, and the pieces it leaves open to theft. It completes the goal only
when the hand's score beats what it expects from playing on, and it steals from whoever
leads the game, preferring pieces it can fit and that earn it more jokers. It looks one roll
ahead with exact probabilities (a value gone from the pile loses the turn), so it needs no
sampling: the same inputs give the same move, and a move takes milliseconds.
"""

from __future__ import annotations

import random
from functools import cache

from games.engine.rng import rng_for
from games.rules.jeexa.goals import SAME_COLOUR, STAIRCASE_HAND, STEPS, achieved, components
from games.rules.jeexa.grid import (
    Cell,
    Grid,
    Placement,
    assess,
    frontier,
    grid_of,
    linked_points,
    links,
    placed,
    placements,
    steal_targets,
)
from games.rules.jeexa.notation import format_place, format_steal
from games.rules.jeexa.pieces import DIRECTIONS, FORBIDDEN, GAP, JOIN, ORIENTATIONS, SIDES, VALUES, contact
from games.rules.jeexa.rules import WIN_BONUS, State, targets, totals

EASY_NOISE = 4.0  # points of random preference: a beginner sees joins, not plans
EASY_JOKER = 2.0
STEAL_HURT = 0.5  # a stolen piece also costs the victim its points; more so the leader
NEXT_ROLL = 0.8  # weight of what the next roll of each value would bring
JOKER_WORTH = 1.3  # a joker is worth the piece it steals and a little more (the victim's loss)
NEXT_JOKER = 4.0  # points an expected joker on the next turn is worth
PROGRESS = 0.6  # weight of the option to win the hand
EXPOSED = 0.15  # share of a piece's points lost for leaving it where a joker can take it
END_BIAS = 0.0  # points added to ending the hand by completing the goal (tuned by bench/jeexa_ai.py)
DIE_FACES = 6


def choose(state: State, seat: int, level: int, seed: int) -> str:
    rng = rng_for(seed, state.moves_played, "jeexa-ai", level, seat)
    if state.stealing:
        return _steal_easy(state, seat, rng) if level == 1 else Strong(state, seat).steal(rng)
    return _place_easy(state, seat, rng) if level == 1 else Strong(state, seat).place(rng)


# --- Easy ----------------------------------------------------------------------------


def _place_easy(state: State, seat: int, rng: random.Random) -> str:
    grid = grid_of(state.grids[seat])
    options, _rule = placements(grid, state.piece)

    def score(option: Placement) -> float:
        x, y, rotation = option
        joins, gaps = assess(grid, (x, y), state.piece, rotation) or (0, 0)
        return joins + EASY_JOKER * gaps + rng.uniform(0, EASY_NOISE)

    return format_place(*max(options, key=score))


def _steal_easy(state: State, seat: int, rng: random.Random) -> str:
    options = targets(state, seat)
    rng.shuffle(options)  # ties go to a seeded coin toss
    victim, cell = max(options, key=lambda t: grid_of(state.grids[t[0]])[t[1]][0])
    return format_steal(victim, cell)


# --- Strong --------------------------------------------------------------------------


class Strong:
    """One decision of the strong player, seen from ``me``."""

    def __init__(self, state: State, me: int) -> None:
        self.state = state
        self.me = me
        self.grid = grid_of(state.grids[me])
        self.chances = _roll_chances(state.pile)
        self.others = [seat for seat in range(state.players) if seat != me]
        self.standing = totals(state)
        self.leader_total = max(self.standing[seat] for seat in self.others)
        self.targets = [(victim, grid_of(state.grids[victim])) for victim in self.others]

    # --- placing ---------------------------------------------------------------------

    def place(self, rng: random.Random) -> str:
        options, _rule = placements(self.grid, self.state.piece)
        rng.shuffle(options)  # ties go to a seeded coin toss
        jokers = self.state.jokers
        best = max(options, key=lambda option: self.placement_value(self.state.piece, option, jokers))
        return format_place(*best)

    def placement_value(self, value: int, option: Placement, jokers: int) -> float:
        x, y, rotation = option
        result = assess(self.grid, (x, y), value, rotation)
        gaps = result[1] if result else 0
        after = placed(self.grid, (x, y), value, rotation)
        goal = achieved(self.state.hand, after)
        if goal is not None:
            # The hand ends at once: the goal's points and the bonus, and nothing more to come.
            return goal.points + WIN_BONUS + END_BIAS
        return self.position_value(after, jokers + gaps)

    def position_value(self, grid: Grid, jokers: int) -> float:
        """What ``grid`` is worth for me, in points, if the hand goes on."""
        return (
            linked_points(grid)
            + self.joker_value(jokers)
            + NEXT_ROLL * self.next_roll(grid)
            + PROGRESS * self.progress(grid)
            - EXPOSED * self.exposed(grid)
        )

    def joker_value(self, jokers: int) -> float:
        if not jokers:
            return 0.0
        worth = sorted((grid[cell][0] for _victim, grid in self.targets for cell in steal_targets(grid)), reverse=True)
        return JOKER_WORTH * sum(worth[:jokers])

    def next_roll(self, grid: Grid) -> float:
        """Expected points and jokers the next roll brings (exact over the six faces)."""
        cells = [_facing(grid, cell) for cell in frontier(grid)]
        total = 0.0
        for value in VALUES:
            chance = self.chances[value - 1]
            if not chance:
                continue
            best = max((_fit_table(facing)[value - 1] for facing in cells), default=-1)
            if best >= 0:  # it fits: the piece will be linked, and may earn jokers
                total += chance * (value + NEXT_JOKER * best)
        return total

    def progress(self, grid: Grid) -> float:
        """The option to win the hand: how near the best set is to the goal, times its worth."""
        hand = self.state.hand
        if hand in SAME_COLOUR:
            return _same_colour_progress(grid, SAME_COLOUR[hand])
        if hand == STAIRCASE_HAND:
            return _staircase_progress(grid)
        return _last_hand_progress(grid)

    def exposed(self, grid: Grid) -> float:
        return sum(grid[cell][0] for cell in steal_targets(grid))

    # --- stealing --------------------------------------------------------------------

    def steal(self, rng: random.Random) -> str:
        options = targets(self.state, self.me)
        rng.shuffle(options)
        values = {victim: grid for victim, grid in self.targets}
        wanted = {values[victim][cell][0] for victim, cell in options}
        fit_worth = {value: self.best_placement(value) for value in wanted}

        def score(target: tuple[int, Cell]) -> float:
            victim, cell = target
            value = values[victim][cell][0]
            # Taking from the leader of the game narrows the gap that decides it.
            lead = 1.0 if self.standing[victim] >= self.leader_total else 0.0
            return fit_worth[value] + STEAL_HURT * value * (1 + lead)

        return format_steal(*max(options, key=score))

    def best_placement(self, value: int) -> float:
        """How good my position gets with a stolen ``value`` placed at its best spot."""
        options, _rule = placements(self.grid, value)
        jokers = self.state.jokers - 1  # this steal uses one
        return max(self.placement_value(value, option, jokers) for option in options)


def _roll_chances(pile: tuple[int, ...]) -> list[float]:
    """Chance that the next roll gives each value: a value gone from the pile loses the turn."""
    return [1 / DIE_FACES if count else 0.0 for count in pile]


def _facing(grid: Grid, cell: Cell) -> tuple[int | None, ...]:
    """The side each neighbour of an empty cell shows towards it (None: no neighbour)."""
    x, y = cell
    facing: list[int | None] = []
    for d, (dx, dy) in enumerate(DIRECTIONS):
        other = grid.get((x + dx, y + dy))
        facing.append(None if other is None else SIDES[other][(d + 2) % 4])
    return tuple(facing)


@cache
def _fit_table(facing: tuple[int | None, ...]) -> tuple[int, ...]:
    """Per value: the most gaps a fitting placement on a cell with these neighbours makes, -1 if none fits."""
    best = []
    for value in VALUES:
        top = -1
        for rotation in ORIENTATIONS[value]:
            mine = SIDES[value, rotation]
            made = [contact(mine[d], side) for d, side in enumerate(facing) if side is not None]
            if FORBIDDEN not in made and JOIN in made:
                top = max(top, made.count(GAP))
        best.append(top)
    return tuple(best)


def _same_colour_progress(grid: Grid, size: int) -> float:
    best = 0.0
    for value, cells in components(grid):
        have = min(len(cells), size)
        best = max(best, (have / size) ** 2 * (size * value + WIN_BONUS))
    return best


def _staircase_progress(grid: Grid) -> float:
    graph = links(grid)
    best = 0.0
    for cell in grid:
        length = _rising_run(grid, graph, cell)
        low = grid[cell][0]
        if low + STEPS - 1 <= max(VALUES):  # a run from 4 up can never become a staircase
            best = max(best, (length / STEPS) ** 2 * (STEPS * low + 6 + WIN_BONUS))
    return best


def _rising_run(grid: Grid, graph: dict[Cell, list[Cell]], cell: Cell) -> int:
    """Longest chain of joined pieces going up one value at a time from ``cell`` (at most 4)."""
    wanted = grid[cell][0] + 1
    longest = 0
    for other in graph[cell]:
        if grid[other][0] == wanted:
            longest = max(longest, _rising_run(grid, graph, other))
    return min(STEPS, 1 + longest)


def _last_hand_progress(grid: Grid) -> float:
    sizes = sorted(((min(len(cells), 4), value) for value, cells in components(grid)), reverse=True)
    if not sizes:
        return 0.0
    (big, big_value), rest = sizes[0], sizes[1:]
    small, small_value = max(((min(s, 3), v) for s, v in rest), default=(0, 0))
    share = (big + small) / 7
    return share**2 * (4 * big_value + 3 * small_value + WIN_BONUS)
