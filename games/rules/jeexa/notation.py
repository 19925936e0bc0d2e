"""Move notation: ``2,-1,90`` places the piece in hand at x=2, y=-1 (y grows downwards)
turned 90° clockwise; ``steal 3 0,1`` takes the piece at 0,1 from seat 3 (Player 4)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.rules.jeexa.grid import Cell
from games.rules.jeexa.pieces import ROTATIONS

# ASCII: \d alone also takes "٠" (Arabic-Indic 0), which int() reads as 0 but no move is written with.
PLACE_PATTERN = re.compile(r"^(-?\d+),(-?\d+),(-?\d+)$", re.ASCII)
STEAL_PATTERN = re.compile(r"^steal (\d+) (-?\d+),(-?\d+)$", re.ASCII)

UNREADABLE = "Write a placement as x,y,turn (for example 2,-1,90) or a steal as steal 3 0,1."
BAD_ROTATION = "A piece is turned by 0, 90, 180 or 270 degrees."


@dataclass(frozen=True)
class Place:
    cell: Cell
    rotation: int


@dataclass(frozen=True)
class Steal:
    victim: int
    cell: Cell


def format_place(x: int, y: int, rotation: int) -> str:
    return f"{x},{y},{rotation}"


def format_steal(victim: int, cell: Cell) -> str:
    return f"steal {victim} {cell[0]},{cell[1]}"


def parse_move(move: str) -> Place | Steal:
    """The parsed move of a normalised string; ``ValueError`` with a player's message."""
    if found := PLACE_PATTERN.match(move):
        rotation = int(found[3])
        if rotation not in ROTATIONS:
            raise ValueError(BAD_ROTATION)
        return Place((int(found[1]), int(found[2])), rotation)
    if found := STEAL_PATTERN.match(move):
        return Steal(int(found[1]), (int(found[2]), int(found[3])))
    raise ValueError(UNREADABLE)
