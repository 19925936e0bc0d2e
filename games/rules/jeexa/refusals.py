"""Why a move is refused, in words a player can act on."""

from __future__ import annotations

from dataclasses import replace

from games.rules.jeexa.grid import (
    FIRST_CELL,
    FREE,
    FREE_MARGIN,
    Cell,
    Grid,
    assess,
    free_cells,
    grid_of,
    joined,
    neighbours,
    placements,
)
from games.rules.jeexa.notation import Place, Steal
from games.rules.jeexa.pieces import FORBIDDEN, ORIENTATIONS, OUT, SIDES, contact
from games.rules.jeexa.rules import State, player

USE_JOKER_FIRST = "You have a joker to use first: steal a piece from another player's puzzle."
NO_JOKER = "You have no joker to use: place your piece."
CELL_TAKEN = "That cell already holds a piece."
FIRST_AT_ORIGIN = "The first piece of a hand goes at 0,0; you only choose how it is turned."
SAME_LOOK = "Turned by {rotation}° this piece looks the same as turned by {same}°: use {same}."
TAB_ON_FLAT = "This piece's {side} tab would hit the flat side of the piece at {x},{y}."
FLAT_ON_TAB = "The tab of the piece at {x},{y} would hit this piece's flat {side} side."
TAB_ON_TAB = "This piece's {side} tab would meet the tab of the piece at {x},{y}."
SIDE_NAMES = ("north", "east", "south", "west")  # in the order of pieces.SIDES
MUST_FIT = "A piece that fits somewhere must be fitted: this placement joins nothing."
TOO_FAR = "A piece placed freely goes within {margin} cells of your puzzle."
STEAL_FROM_YOURSELF = "A joker steals from another player, not from your own puzzle."
NO_SUCH_SEAT = "There is no seat {victim} in this game (seats are numbered from 0)."
NO_PIECE_THERE = "There is no piece at {x},{y} in {whose} puzzle."
NOT_AN_END = "You may only steal a piece at one end of a chain."
LEAVES_LOOSE = "Taking that piece would leave a loose piece behind."


def why_not_place(state: State, seat: int, move: Place) -> str | None:
    grid = grid_of(state.grids[seat])
    value, rotation = state.piece, move.rotation
    if move.cell in grid:
        return CELL_TAKEN
    if not grid and move.cell != FIRST_CELL:
        return FIRST_AT_ORIGIN
    if rotation not in ORIENTATIONS[value]:
        same = next(r for r in ORIENTATIONS[value] if SIDES[value, r] == SIDES[value, rotation])
        if (*move.cell, same) in placements(grid, value)[0]:
            return SAME_LOOK.format(rotation=rotation, same=same)
        # The same piece as turned by ``same``, which is refused too: for the same reason.
        return why_not_place(state, seat, replace(move, rotation=same))
    if assess(grid, move.cell, value, rotation) is None:
        return _forbidden_contact(grid, move.cell, value, rotation)
    _found, rule = placements(grid, value)
    if rule != FREE:
        return MUST_FIT
    if move.cell not in free_cells(grid):
        return TOO_FAR.format(margin=FREE_MARGIN)
    return None


def _forbidden_contact(grid: Grid, cell: Cell, value: int, rotation: int) -> str:
    """Which tab has nowhere to go, and whose: the piece's own or its neighbour's."""
    mine = SIDES[value, rotation]
    for d, other in neighbours(grid, cell):
        theirs = SIDES[grid[other]][(d + 2) % 4]
        if contact(mine[d], theirs) == FORBIDDEN:
            why = TAB_ON_TAB if mine[d] == theirs else TAB_ON_FLAT if mine[d] == OUT else FLAT_ON_TAB
            return why.format(side=SIDE_NAMES[d], x=other[0], y=other[1])
    raise AssertionError("called only for a placement with a forbidden contact")


def why_not_steal(state: State, seat: int, move: Steal) -> str | None:
    if move.victim == seat:
        return STEAL_FROM_YOURSELF
    if not 0 <= move.victim < state.players:
        return NO_SUCH_SEAT.format(victim=move.victim)
    grid = grid_of(state.grids[move.victim])
    if move.cell not in grid:
        x, y = move.cell
        return NO_PIECE_THERE.format(x=x, y=y, whose=f"{player(move.victim)}'s")
    partners = joined(grid, move.cell)
    if len(partners) != 1:
        return NOT_AN_END
    return LEAVES_LOOSE
