"""Jeexa's board as its template draws it: the viewer's puzzle large with the cells and
turns where the piece in hand may go, every other puzzle small (with the pieces a joker may
take), the piece in hand, the roll, the hand's goal, the last hand's result and the score
table. Pieces are SVG paths with their tabs and slots; every piece also shows its number,
so no colour has to be told apart.

The last move marks what changed since the position the viewer's marks count from: each piece
placed, each cell a stolen piece left (with its outline) and where it went, the die when a new
turn was rolled, and the last hand's result when a hand ended."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from games.boards import LastMove
from games.rules.jeexa.goals import GOAL_NAMES, achieved
from games.rules.jeexa.grid import assess, placed, steal_targets
from games.rules.jeexa.pieces import COLOURS, IN, OUT, SHAPES, VALUES

Point = tuple[float, float]

BODY_LOW = 4  # the body of a piece inside its 100-unit cell: 4 to 96 (each side is the top one turned)
TAB_HALF, TAB_REACH = 12, 16  # a tab: a neck this far out, then a round head (it sits in the slot's end)
SLOT_HALF, SLOT_NECK = 14, 8  # a slot: a neck this deep, then a round end
ARC_STEPS = 8
DIE_PIPS = {
    1: [(50, 50)],
    2: [(28, 28), (72, 72)],
    3: [(28, 28), (50, 50), (72, 72)],
    4: [(28, 28), (72, 28), (28, 72), (72, 72)],
    5: [(28, 28), (72, 28), (50, 50), (28, 72), (72, 72)],
    6: [(28, 28), (72, 28), (28, 50), (72, 50), (28, 72), (72, 72)],
}
RULE_TEXT = {  # to the player placing
    "first": "The first piece of the hand goes in the middle: choose how it is turned.",
    "fit": "It must be fitted: tab in slot with one of your pieces.",
    "free": "Nothing fits anywhere, so it may go on any free spot shown.",
}
RULE_TEXT_WATCHING = {  # to everyone else
    "first": "The first piece of the hand goes in the middle of the puzzle, turned as its player chooses.",
    "fit": "It must be fitted: tab in slot with a piece already in that puzzle.",
    "free": "Nothing fits anywhere, so it may go on any free spot.",
}


# --- piece outlines -----------------------------------------------------------------------


def _north_edge(side: int) -> list[Point]:
    """The top edge of a piece from its top-left corner rightwards, with a tab or slot."""
    left: list[Point] = [(BODY_LOW, BODY_LOW)]
    mid = 50
    if side == OUT:
        base = BODY_LOW - TAB_REACH
        head = [
            (mid - TAB_HALF * math.cos(math.pi * i / ARC_STEPS), base - TAB_HALF * math.sin(math.pi * i / ARC_STEPS))
            for i in range(ARC_STEPS + 1)
        ]
        return [*left, (mid - TAB_HALF, BODY_LOW), *head, (mid + TAB_HALF, BODY_LOW)]
    if side == IN:
        base = BODY_LOW + SLOT_NECK
        end = [
            (mid - SLOT_HALF * math.cos(math.pi * i / ARC_STEPS), base + SLOT_HALF * math.sin(math.pi * i / ARC_STEPS))
            for i in range(ARC_STEPS + 1)
        ]
        return [*left, (mid - SLOT_HALF, BODY_LOW), *end, (mid + SLOT_HALF, BODY_LOW)]
    return left


def _turn(point: Point, quarters: int) -> Point:
    """Turn a point about the cell's centre by quarter turns clockwise (y grows downwards)."""
    x, y = point
    for _ in range(quarters):
        x, y = 100 - y, x
    return x, y


def outline(value: int) -> str:
    """The SVG path of an unturned piece; the template turns it with ``transform``."""
    points: list[Point] = []
    for quarters, side in enumerate(SHAPES[value]):
        points += [_turn(p, quarters) for p in _north_edge(side)]
    head, *rest = points
    return f"M{head[0]:.1f} {head[1]:.1f}" + "".join(f"L{x:.1f} {y:.1f}" for x, y in rest) + "Z"


OUTLINES = {value: outline(value) for value in VALUES}


def piece(value: int, rotation: int = 0, **flags: object) -> dict:
    return {
        "value": value,
        "colour": COLOURS[value],
        "rotation": rotation,
        "path": OUTLINES[value],
        **flags,
    }


# --- puzzles --------------------------------------------------------------------------------


def _cells(moves: list[str]) -> tuple[dict[tuple[int, int], list[dict]], dict[tuple[int, int, int], str]]:
    """Placements by cell (turns ascending) and steals by (victim, x, y)."""
    spots: dict[tuple[int, int], list[dict]] = {}
    steals: dict[tuple[int, int, int], str] = {}
    for move in moves:
        if move.startswith("steal "):
            _word, victim, where = move.split(" ")
            column, row = where.split(",")
            steals[int(victim), int(column), int(row)] = move
            continue
        x, y, rotation = (int(part) for part in move.split(","))
        spots.setdefault((x, y), []).append({"move": move, "rotation": rotation})
    for options in spots.values():
        options.sort(key=lambda option: option["rotation"])
    return spots, steals


def puzzle(
    pieces: list[dict],
    *,
    spots: dict | None = None,
    steals: dict | None = None,
    counted: set | None = None,
    goal: set | None = None,
    in_hand: int | None = None,
    hand: int = 0,
    robbable: bool = True,
    marked: dict | None = None,
    gone: dict | None = None,
) -> dict:
    """Rows of cells covering the pieces and the spots where the piece in hand may go, and the
    numbers of their columns (each row's number is its cells' ``y``): the log names places by them.

    ``counted`` (when given) marks the other pieces as loose: they would score nothing if the hand
    ended now. ``goal``: the pieces outlined (those a finished hand scored). ``hand`` and ``robbable``
    (whether any other puzzle has a piece a joker could take) let each spot say what it makes.
    ``marked``: the cells the last move placed a piece on, and ``gone`` those a piece was stolen
    from (the piece that was there), each with its ``order``; a cell left is drawn even at the edge.
    """
    spots, steals, goal = spots or {}, steals or {}, goal or set()
    marked, gone = marked or {}, gone or {}
    at = {(p["x"], p["y"]): p for p in pieces}
    where = set(at) | set(spots) | set(gone)
    if not where:
        return {"rows": [], "count": 0}
    xs, ys = [x for x, _ in where], [y for _, y in where]
    rows = []
    for y in range(min(ys), max(ys) + 1):
        row = []
        for x in range(min(xs), max(xs) + 1):
            cell: dict = {"x": x, "y": y, "piece": None, "options": [], "mark": marked.get((x, y))}
            if (x, y) in at:
                p = at[x, y]
                loose = counted is not None and (x, y) not in counted
                cell["piece"] = piece(
                    p["value"], p["rotation"], loose=loose, goal=(x, y) in goal, steal=steals.get((x, y))
                )
            else:
                cell["gone"] = gone.get((x, y))
                if in_hand:
                    cell["options"] = [
                        {
                            **o,
                            "piece": piece(in_hand, o["rotation"]),
                            "makes": _makes(at, (x, y), in_hand, o["rotation"], hand, robbable),
                        }
                        for o in spots.get((x, y), [])
                    ]
            row.append(cell)
        rows.append(row)
    return {"rows": rows, "columns": list(range(min(xs), max(xs) + 1)), "count": len(pieces)}


def _makes(at: dict, cell: tuple[int, int], value: int, rotation: int, hand: int, robbable: bool) -> str:
    """What a placement makes, as the move log will say it: a screen reader hears it with the
    spot, since the turned piece's tabs and slots are only drawn. A placement that completes the
    goal says so, not its jokers: winning ends the hand, and the jokers with it."""
    if not at:
        return "first piece of the hand"
    grid = {where: (p["value"], p["rotation"]) for where, p in at.items()}
    joins, gaps = assess(grid, cell, value, rotation) or (0, 0)
    words = ["1 join" if joins == 1 else f"{joins} joins"] if joins else ["placed freely"]
    if hand and achieved(hand, placed(grid, cell, value, rotation)):
        words.append(f"completes the {GOAL_NAMES[hand]} and wins the hand")
    elif gaps:
        jokers = "1 joker" if gaps == 1 else f"{gaps} jokers"
        words.append(jokers if robbable else f"{jokers}, but no piece can be stolen")
    return ", ".join(words)


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    focus = seat if seat is not None else (view["to_move"] if view["to_move"] is not None else 0)
    spots, steals = _cells(legal)
    # Whether a joker earned now could take a piece: one at an end of another player's chain.
    robbable = any(
        steal_targets({(p["x"], p["y"]): (p["value"], p["rotation"]) for p in pieces})
        for owner, pieces in enumerate(view["grids"])
        if owner != focus
    )
    marks = _marks(view, last)
    order = marks.ranks()
    puzzles = []
    for owner, pieces in enumerate(view["grids"]):
        standing = view["standing"][owner] if view["standing"] else None  # none once the game is over
        counted = {tuple(cell) for cell in standing["cells"]} if standing else None
        mine = owner == focus
        own_steals = {(x, y): move for (victim, x, y), move in steals.items() if victim == owner}
        marked = {
            (x, y): {"order": order[key], "from": _number(marks.came_from.get((owner, x, y)))}
            for (placer, x, y), key in marks.placed.items()
            if placer == owner
        }
        gone = {
            (x, y): {
                "piece": piece(value, rotation, leaving=True),
                "order": order[key],
                "by": _number(marks.taken_by.get((owner, x, y))),
            }
            for (victim, x, y), (value, rotation, key) in marks.gone.items()
            if victim == owner
        }
        puzzles.append(
            {
                "seat": owner,
                "number": owner + 1,
                "is_me": seat == owner,
                "to_move": view["to_move"] == owner,
                "points_now": standing["points"] if standing else None,
                "has_targets": bool(own_steals),
                **puzzle(
                    pieces,
                    spots=spots if mine else None,
                    steals=own_steals,
                    counted=counted,
                    in_hand=view["piece"] if mine else None,
                    hand=view["hand_number"] if not view["over"] else 0,
                    robbable=robbable,
                    marked=marked,
                    gone=gone,
                ),
            }
        )
    return {
        "me": seat,
        "focus": puzzles[focus],
        "others": [p for p in puzzles if p["seat"] != focus],
        "puzzles": puzzles,
        "hand_number": view["hand_number"],
        "hands": view["hands"],
        "goal": view["goal"],
        "goal_name": view["goal_name"],
        "die": view["die"],
        "die_mark": _rank(order, marks.die),
        "pips": DIE_PIPS.get(view["die"] or 0, []),
        "in_hand": piece(view["piece"]) if view["piece"] else None,
        "in_hand_mark": _rank(order, marks.in_hand),
        "stolen_from": None if view["stolen_from"] is None else view["stolen_from"] + 1,
        "rule": (RULE_TEXT if view["to_move"] == seat else RULE_TEXT_WATCHING).get(view["placement_rule"], ""),
        "jokers": view["jokers"],
        "stealing": bool(steals),
        "placing": bool(spots),
        "to_move": None if view["to_move"] is None else view["to_move"] + 1,
        "events": view["events"],
        "pile": [{**piece(v), "count": view["pile"][v - 1]} for v in VALUES],
        "last_hand": _last_hand(view["last_hand"], _rank(order, marks.hand_ended)),
        "table": _table(view),
        "over": view["over"],
        "winners": [seat + 1 for seat in view["winners"]],
        "marked": bool(order),
    }


def step_reveals(before: dict, after: dict) -> bool:
    """A step rolled the die when it took a piece from the pile or began a hand. Most such steps
    end the turn, but not all: the same player rolls again when every other player's roll found
    no piece left, and the winner of a hand starts the next one. Placements and steals show
    nothing new (every puzzle is on the table)."""
    return before["hand_number"] != after["hand_number"] or before["pile"] != after["pile"]


# --- the last move --------------------------------------------------------------------------


@dataclass
class Marks:
    """What the last move changed, each with a key that orders the changes (``ranks`` turns the
    keys into the 0, 1, 2 ... the animation counts)."""

    placed: dict[tuple[int, int, int], float] = field(default_factory=dict)  # (seat, x, y): key
    came_from: dict[tuple[int, int, int], int] = field(default_factory=dict)  # a stolen piece placed: its owner
    gone: dict[tuple[int, int, int], tuple[int, int, float]] = field(default_factory=dict)  # value, rotation, key
    taken_by: dict[tuple[int, int, int], int] = field(default_factory=dict)  # a cell left: its thief
    in_hand: float | None = None  # the stolen piece, not placed yet
    die: float | None = None
    hand_ended: float | None = None

    def ranks(self) -> dict[float, int]:
        keys = [*self.placed.values(), *(key for *_, key in self.gone.values())]
        keys += [key for key in (self.in_hand, self.die, self.hand_ended) if key is not None]
        return {key: rank for rank, key in enumerate(sorted(set(keys)))}


def _marks(view: dict, last: LastMove | None) -> Marks:
    """The changes, found by comparing each puzzle then and now (a new hand began with empty
    ones), ordered by the moves played: a steal, then the placement of what it took, the roll of
    the turn under way last. A steal taken by itself (the only piece there was) is no move of its
    own: it comes just before the first placement of a piece of its value in another puzzle."""
    marks = Marks()
    if last is None:
        return marks
    before, played = last.before, last.played
    new_hand = before["hand_number"] != view["hand_number"]
    placed_at, stolen_at = _move_indexes(played, marks)
    end = float(len(played))
    for seat, pieces in enumerate(view["grids"]):
        was = {} if new_hand else _kinds(before["grids"][seat])
        now = _kinds(pieces)
        for cell, kind in now.items():
            if was.get(cell) != kind:
                marks.placed[(seat, *cell)] = placed_at.get((seat, *cell), end)
        for cell, (value, rotation) in was.items():
            if cell not in now:
                marks.gone[(seat, *cell)] = (value, rotation, stolen_at.get((seat, *cell), -1.0))
    for where, (value, rotation, key) in marks.gone.items():
        if key >= 0:
            continue
        landed = sorted(
            (k, spot)
            for spot, k in marks.placed.items()
            if spot[0] != where[0] and _kinds(view["grids"][spot[0]])[spot[1:]][0] == value
        )
        if landed:
            key, spot = landed[0][0] - 0.5, landed[0][1]
            marks.came_from.setdefault(spot, where[0])
            marks.taken_by.setdefault(where, spot[0])
        marks.gone[where] = (value, rotation, key if key >= 0 else end - 0.5)
    if view["stolen_from"] is not None and view["piece"]:
        left = [
            k
            for (seat, *_), (value, _r, k) in marks.gone.items()
            if (seat, value) == (view["stolen_from"], view["piece"])
        ]
        marks.in_hand = max(left) + 0.25 if left else None
    ended = (view["last_hand"] or {}).get("hand")
    if ended is not None and ended != (before["last_hand"] or {}).get("hand"):
        marks.hand_ended = min(marks.placed.values(), default=end) - 0.75 if new_hand else end
    # A roll takes a piece from the pile (a hand begins with a full one): the roll of the turn under
    # way, after every move.
    if view["die"] and (new_hand or before["pile"] != view["pile"]):
        marks.die = end + 1
    return marks


def _move_indexes(played: tuple[tuple[int, str], ...], marks: Marks) -> tuple[dict, dict]:
    """Where each move happened, by its index: the last placement on each cell and the last steal
    from each; a steal's thief and the cell its next placement put the piece on go into ``marks``."""
    placed_at: dict[tuple[int, int, int], int] = {}
    stolen_at: dict[tuple[int, int, int], int] = {}
    for index, (seat, move) in enumerate(played):
        if move.startswith("steal "):
            _word, victim, where = move.split(" ")
            column, row = where.split(",")
            cell = (int(victim), int(column), int(row))
            stolen_at[cell] = index
            marks.taken_by[cell] = seat
            after = next((m for s, m in played[index + 1 :] if s == seat and not m.startswith("steal ")), None)
            if after:
                x, y, _rotation = (int(part) for part in after.split(","))
                marks.came_from[seat, x, y] = cell[0]
        else:
            x, y, _rotation = (int(part) for part in move.split(","))
            placed_at[seat, x, y] = index
    return placed_at, stolen_at


def _rank(order: dict[float, int], key: float | None) -> int | None:
    return None if key is None else order[key]


def _kinds(pieces: list[dict]) -> dict[tuple[int, int], tuple[int, int]]:
    return {(p["x"], p["y"]): (p["value"], p["rotation"]) for p in pieces}


def _number(seat: int | None) -> int | None:
    return None if seat is None else seat + 1


def _last_hand(result: dict | None, mark: int | None = None) -> dict | None:
    """The hand just finished: every puzzle as it ended, the pieces each player scored outlined (the
    winner's goal, everyone else's best partial goal), so that the scores can be checked by eye.
    ``mark``: the order of its end among the changes the last move made (None: it ended before)."""
    if result is None:
        return None
    puzzles = [
        {
            "number": seat + 1,
            "points": result["scores"][seat],
            "won": seat == result["winner"],
            **puzzle(pieces, goal={tuple(cell) for cell in result["scored"][seat]}),
        }
        for seat, pieces in enumerate(result["puzzles"])
        if pieces  # a hand stored before every puzzle was kept has the winner's alone
    ]
    return {
        "hand": result["hand"],
        "goal_name": result["goal_name"],
        "winner": None if result["winner"] is None else result["winner"] + 1,
        "points": None if result["winner"] is None else result["scores"][result["winner"]],
        "puzzles": puzzles,
        "scores": [{"number": seat + 1, "points": points} for seat, points in enumerate(result["scores"])],
        "mark": mark,
    }


def _table(view: dict) -> dict:
    """Players by six hands, then totals; hands not played yet are blank."""
    played = view["scores"]
    rows = []
    for seat in range(view["players"]):
        cells = [row[seat] for row in played] + [None] * (view["hands"] - len(played))
        rows.append(
            {"number": seat + 1, "cells": cells, "total": view["totals"][seat], "winner": seat in view["winners"]}
        )
    return {"hands": list(range(1, view["hands"] + 1)), "rows": rows}
