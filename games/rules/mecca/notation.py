"""Move notation: ``f3`` places a pilgrim (or, during set-up, takes that entrance),
``xf3`` removes the pilgrim on f3, ``pass`` declines the removal."""

from __future__ import annotations

from typing import NamedTuple

from games.rules.mecca.board import square_index, square_name

PASS = "pass"
REMOVE_PREFIX = "x"
NAME_A_MOVE = "Name a square such as f3, a removal such as xf3, or pass."
NO_SUCH_SQUARE = "There is no square “{name}”: columns run from a to k and rows from 1 to 11."


class Move(NamedTuple):
    kind: str  # "place", "remove" or "pass"
    square: int | None


def parse_move(move: str) -> Move:
    """The move a normalised string names; ``ValueError`` with a player's message."""
    if move == PASS:
        return Move("pass", None)
    kind, name = ("remove", move[1:]) if move.startswith(REMOVE_PREFIX) else ("place", move)
    if not name or not name[0].isalpha() or not name[1:].isdigit():
        raise ValueError(NAME_A_MOVE)
    square = square_index(name)
    if square is None:
        raise ValueError(NO_SUCH_SQUARE.format(name=name))
    return Move(kind, square)


def place_move(square: int) -> str:
    return square_name(square)


def remove_move(square: int) -> str:
    return REMOVE_PREFIX + square_name(square)
