"""Mancala's board as its template draws it: the viewer's tiles along the bottom, numbered 1-6
from the left, and the other player's along the top, numbered from *his* left (6 to 1 on the
screen), as the move log counts them.

Only the player to move gets buttons, and they sit on his own row, the bottom one. There,
sowing to the right (``r``, counterclockwise) carries the coins rightwards towards his mancala
and sowing to the left (``l``, clockwise) leftwards, so an arrow pointing that way on the
screen is right for either seat."""

from __future__ import annotations

from typing import NamedTuple

from games.boards import LastMove
from games.rules.mancala.rules import ETHIOPIAN, NIGERIAN, STALL_LIMIT


class Direction(NamedTuple):
    arrow: str  # the way the first coins go along the bottom row, on the screen
    turn: str  # the spec's name for it
    side: str  # the mover's own word, which the move log uses ("to the left")


STALL_WARNING = 20  # moves without a banked coin from which the board counts down to the stall rule

DIRECTIONS = {
    "l": Direction(arrow="◀", turn="clockwise", side="left"),
    "r": Direction(arrow="▶", turn="counterclockwise", side="right"),
}


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    me = seat if seat is not None else 0
    them = 1 - me
    moves_by_tile: dict[int, list[dict]] = {}
    for move in legal:
        number = int(move.rstrip("lr"))
        moves_by_tile.setdefault(number, []).append(_option(number, move, view["tiles"][me][number - 1]))
    bottom = [{"number": i + 1, "coins": view["tiles"][me][i], "moves": moves_by_tile.get(i + 1, [])} for i in range(6)]
    # Seen from across the table, the other player's tiles run right to left.
    top = [{"number": i + 1, "coins": view["tiles"][them][i]} for i in reversed(range(6))]
    return {
        "me": me,
        "them": them,
        "top": top,
        "bottom": bottom,
        "my_store": view["mancalas"][me],
        "their_store": view["mancalas"][them],
        "ethiopian": view["variant"] == ETHIOPIAN,
        "choosing_direction": any(option["direction"] for options in moves_by_tile.values() for option in options),
        "single_coin_note": _single_coin_note(bottom) if legal else "",
        "directions": DIRECTIONS,
        "uncounted": _uncounted(view),
        "stall": _stall(view),
    }


def _single_coin_note(bottom: list[dict]) -> str:
    """Ethiopian: a tile of the mover's with one coin gets no button; the key says why."""
    numbers = [str(tile["number"]) for tile in bottom if tile["coins"] == 1]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"Tile {numbers[0]} holds a single coin, which may never start a sowing."
    return f"Tiles {', '.join(numbers[:-1])} and {numbers[-1]} hold a single coin, which may never start a sowing."


def _stall(view: dict) -> dict | None:
    """Ethiopian: how long no coin was banked, once it gets long (no random game went past 16),
    and whether that ended the game."""
    quiet = view.get("quiet_moves", 0)
    if view["variant"] != ETHIOPIAN or quiet < STALL_WARNING or (view["over"] and quiet < STALL_LIMIT):
        return None
    return {"moves": quiet, "left": STALL_LIMIT - quiet, "ended": quiet >= STALL_LIMIT}


def _option(number: int, move: str, coins: int) -> dict:
    """One button: plain "Sow", or an Ethiopian direction as an arrow with words for its
    label; the label a screen reader reads says how many coins go."""
    what = f"Sow tile {number} ({coins} coin{'s' if coins != 1 else ''})"
    direction = DIRECTIONS.get(move[-1])
    if direction is None:
        return {"move": move, "label": "Sow", "direction": "", "aria_label": what}
    return {
        "move": move,
        "label": direction.arrow,
        "direction": move[-1],
        "aria_label": f"{what} {direction.turn} (to your {direction.side})",
    }


def _uncounted(view: dict) -> dict | None:
    """At the end of a Nigerian game, the coins left on the tiles, which score nothing."""
    if view["variant"] != NIGERIAN or not view.get("over"):
        return None
    left = sum(view["tiles"][0]) + sum(view["tiles"][1])
    return {"coins": left, "scored": sum(view["mancalas"]), "total": left + sum(view["mancalas"])}
