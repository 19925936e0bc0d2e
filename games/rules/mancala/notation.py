"""Move notation: ``3`` (tile 3 from the mover's left), and in Ethiopian ``3r`` / ``3l``."""

from __future__ import annotations

import re

from games.rules.mancala.rules import ETHIOPIAN, LEFT, RIGHT, TILES

MOVE_PATTERN = re.compile(r"^(\d+)([a-z]?)$", re.ASCII)  # ASCII: \d alone also takes "١" (Arabic-Indic 1)
DIRECTIONS = {"r": RIGHT, "l": LEFT}
LETTERS = {RIGHT: "r", LEFT: "l"}

NAME_A_TILE = "Name a tile by its number, 1 to 6 (for example 3)."
NAME_A_TILE_AND_DIRECTION = "Name a tile and a direction, for example 3r (to the right) or 3l (to the left)."
TILE_RANGE = "Tiles are numbered 1 to 6."
CHOOSE_DIRECTION = "Choose a direction: {tile}r or {tile}l."
NO_DIRECTION_HERE = "Only the Ethiopian game has directions; name just the tile, for example {tile}."
UNKNOWN_DIRECTION = "The direction is r (to the right) or l (to the left)."


def format_move(tile: int, step: int, variant: str) -> str:
    """Notation of a sowing from tile index ``tile`` (0..5)."""
    number = str(tile + 1)
    return number + LETTERS[step] if variant == ETHIOPIAN else number


def named_tile(move: str) -> int | None:
    """The tile index a move names, even when its direction is wrong or missing."""
    found = MOVE_PATTERN.match(move)
    return int(found[1]) - 1 if found and 1 <= int(found[1]) <= TILES else None


def parse_move(move: str, variant: str) -> tuple[int, int]:
    """``(tile index, step)`` of a normalised move; ``ValueError`` with a player's message."""
    found = MOVE_PATTERN.match(move)
    if not found:
        raise ValueError(NAME_A_TILE_AND_DIRECTION if variant == ETHIOPIAN else NAME_A_TILE)
    number, letter = int(found[1]), found[2]
    if not 1 <= number <= TILES:
        raise ValueError(TILE_RANGE)
    if variant != ETHIOPIAN:
        if letter:
            raise ValueError(NO_DIRECTION_HERE.format(tile=number))
        return number - 1, RIGHT
    if not letter:
        raise ValueError(CHOOSE_DIRECTION.format(tile=number))
    if letter not in DIRECTIONS:
        raise ValueError(UNKNOWN_DIRECTION)
    return number - 1, DIRECTIONS[letter]
