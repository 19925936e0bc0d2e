"""Computer players. Both see only what a player at the table sees: the roll of the turn
under way, the pile and the puzzles; never the seed nor a future roll.

Level 1 ("Easy") plays like a beginner: it fits the piece where it makes the most joins
and jokers, with a lot of seeded noise, and steals the most valuable piece it may take.

Level 2 ("Strong") plays for the hand's goal. It completes the goal whenever a placement does
(the most valuable way when there are several). Otherwise it weighs each placement by what its
puzzle is then worth for the hand (``appraisal``: the goal times a rough chance of completing it
from the groups or paths it has, with cells left open for the pieces they need, else the partial
goal it would score), plus the jokers the placement earns, each worth the best theft it allows.
A theft is worth what the piece brings to its own puzzle (the goal at once, when it completes
it) and what it costs the victim's, counted in full for the rival most likely to beat it: the
player nearest the goal and ahead in the game loses most. Every estimate is arithmetic on the
puzzles and the pile; ties go to a coin tossed from the seed, so the same inputs give the same move.
"""

from __future__ import annotations

import random

from games.engine.rng import rng_for
from games.rules.jeexa.appraisal import Appraiser, Reading
from games.rules.jeexa.goals import achieved
from games.rules.jeexa.grid import Cell, Placement, assess, grid_of, placed, placements, removed, steal_targets
from games.rules.jeexa.notation import format_place, format_steal
from games.rules.jeexa.rules import State, targets, totals

EASY_NOISE = 4.0  # points of random preference: a beginner sees joins, not plans
EASY_JOKER = 2.0
COMPLETE = 1000.0  # completing the goal wins the hand: no other placement or theft comes near
NEXT_JOKER = 2.0  # points a joker the next roll may earn is worth
OTHERS_HURT = 0.5  # share of a loss that counts when the victim is not my closest rival


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
        self.appraiser = Appraiser(state.hand, state.players, state.pile)
        self.others = [seat for seat in range(state.players) if seat != me]
        self._losses: list[tuple[int, Cell, int, float]] | None = None
        self._rival: int | None = None

    # --- placing ---------------------------------------------------------------------

    def place(self, rng: random.Random) -> str:
        options, _rule = placements(self.grid, self.state.piece)
        rng.shuffle(options)  # ties go to a seeded coin toss
        best = max(options, key=lambda option: self.placement_value(self.state.piece, option, self.state.jokers))
        return format_place(*best)

    def placement_value(self, value: int, option: Placement, jokers: int) -> float:
        x, y, rotation = option
        gaps = (assess(self.grid, (x, y), value, rotation) or (0, 0))[1]
        after = placed(self.grid, (x, y), value, rotation)
        goal = achieved(self.state.hand, after)
        if goal is not None:  # the hand is won at once: nothing on the table is worth more
            return COMPLETE + goal.points
        reading = self.appraiser.read(after)
        return reading.worth + self.joker_value(reading, jokers + gaps) + NEXT_JOKER * reading.next_jokers

    def joker_value(self, reading: Reading, jokers: int) -> float:
        """The thefts ``jokers`` allow: each piece's gain in my puzzle and the victim's loss."""
        if not jokers:
            return 0.0
        worth = sorted(
            (reading.gains[value - 1] + self.weight(victim) * loss for victim, _cell, value, loss in self.losses()),
            reverse=True,
        )
        return sum(max(0.0, w) for w in worth[:jokers])

    def losses(self) -> list[tuple[int, Cell, int, float]]:
        """Each piece I may steal, ``(victim, cell, value, loss)``: what losing it costs its owner's puzzle."""
        if self._losses is None:
            self._losses = []
            for victim in self.others:
                grid = grid_of(self.state.grids[victim])
                before = self.appraiser.read(grid).worth
                for cell in steal_targets(grid):
                    after = self.appraiser.read(removed(grid, cell)).worth
                    self._losses.append((victim, cell, grid[cell][0], before - after))
        return self._losses

    def weight(self, victim: int) -> float:
        """How much a loss of ``victim`` counts for me: in full for the rival most likely to beat me
        (the best total with what the hand under way promises him)."""
        if self._rival is None:
            standing = totals(self.state)
            outlook = {
                seat: standing[seat] + self.appraiser.read(grid_of(self.state.grids[seat])).worth
                for seat in self.others
            }
            self._rival = max(self.others, key=lambda seat: outlook[seat])
        return 1.0 if victim == self._rival else OTHERS_HURT

    # --- stealing --------------------------------------------------------------------

    def steal(self, rng: random.Random) -> str:
        """The theft worth most: the piece at its best in my puzzle plus the weighted loss of its owner."""
        options = targets(self.state, self.me)
        rng.shuffle(options)
        hurt = {(victim, cell): self.weight(victim) * loss for victim, cell, _value, loss in self.losses()}
        values = {(victim, cell): grid_of(self.state.grids[victim])[cell][0] for victim, cell in options}
        mine = {value: self.best_placement(value) for value in set(values.values())}
        return format_steal(*max(options, key=lambda target: mine[values[target]] + hurt[target]))

    def best_placement(self, value: int) -> float:
        """How good my position gets with a stolen ``value`` placed at its best spot."""
        options, _rule = placements(self.grid, value)
        jokers = self.state.jokers - 1  # this steal uses one
        return max(self.placement_value(value, option, jokers) for option in options)
