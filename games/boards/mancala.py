"""Mancala's board as its template draws it: the viewer's tiles along the bottom."""

from __future__ import annotations

DIRECTION_LABELS = {"l": "◀", "r": "▶"}


def present(view: dict, seat: int | None, legal: list[str]) -> dict:
    me = seat if seat is not None else 0
    them = 1 - me
    moves_by_tile: dict[int, list[dict]] = {}
    for move in legal:
        number = int(move.rstrip("lr"))
        direction = move[-1] if move[-1] in DIRECTION_LABELS else ""
        label = f"{DIRECTION_LABELS[direction]}" if direction else "Sow"
        moves_by_tile.setdefault(number, []).append({"move": move, "label": label, "direction": direction})
    bottom = [
        {"number": i + 1, "coins": view["tiles"][me][i], "moves": moves_by_tile.get(i + 1, [])} for i in range(6)
    ]
    # Seen from across the table, the other player's tiles run right to left.
    top = [{"number": i + 1, "coins": view["tiles"][them][i]} for i in reversed(range(6))]
    return {
        "me": me,
        "them": them,
        "top": top,
        "bottom": bottom,
        "my_store": view["mancalas"][me],
        "their_store": view["mancalas"][them],
    }

