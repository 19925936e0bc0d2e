"""Mecca's board as its template draws it: the 11 × 11 compound, north at the top as in
the rules' picture, every colour shown by its letter as well (Y R G B K W) so the board
reads without colour vision.

The last move (``LastMove``) is marked on each square it changed, in the order it changed
them: a pilgrim placed (or an entrance taken), the pilgrim removed and those it left alone,
gone back to their owners. The moves are played again by the engine from ``before``: a
Mecca view hides nothing, and a removal's returns are the engine's to say."""

from __future__ import annotations

from games.boards import LastMove, last_span_words
from games.engine import get_game
from games.engine.base import IllegalMove
from games.rules.mecca.board import (
    CLOSE_TO_KAABA,
    COLOURS,
    CRESCENT_COLOUR,
    ENTRANCES,
    FILES,
    LETTERS,
    SIZE,
    mat,
    square_name,
)
from games.rules.mecca.notation import parse_move
from games.rules.mecca.rules import State

MECCA = get_game("mecca")
# A turn is several steps, which its player may take back (games.services.holding).
TAKE_BACK = True
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
LETTER = dict(zip(COLOURS, LETTERS, strict=True))
REASONS = {
    "blocked": "No colour could place a pilgrim any more.",
    "emptied": "A player had placed all his pilgrims, so the round was completed.",
}
# After the name of the one player with an empty hand at the end, as the result names them.
PLACED_ALL = "placed all their pilgrims, so the round was completed."
# What the last move did to a square.
PLACED, REMOVED, RETURNED = "placed", "removed", "returned"
LAST_ORDER_CAP = 30  # the arrival's steps the board's CSS counts; later changes arrive with the 30th


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    step = view["step"]
    acting = bool(legal)
    changed, span = _changes(last)
    returned = {**_returned(view), **{name: mark["colour"] for name, mark in changed.items() if mark["kind"] != PLACED}}
    targets = set(view["targets"])
    in_play = {colour for colours in view["colours"] for colour in colours}
    rows = [
        [
            _cell(row * SIZE + column, view, step, acting, targets, returned, in_play, changed, span)
            for column in range(SIZE)
        ]
        for row in range(SIZE)
    ]
    return {
        "files": list(FILES),
        "rows": [{"number": row + 1, "cells": cells} for row, cells in enumerate(rows)],
        "colours": _colours(view, seat),
        "acting": acting,
        "can_pass": "pass" in legal,
        "step": step,
        "prompt": _prompt(view, acting),
        "notes": _notes(view),
        "scores": _scores(view, seat),
        **_reason(view),
        "purple_in_play": view["purple_in_play"],
        "any_out": any(cell["out"] for cells in rows for cell in cells),
        "last_span": last_span_words(span) if changed else "",
        "picture_label": _picture_label(view),
    }


def seat_colours(view: dict) -> dict[int, str]:
    return {seat: " and ".join(colour.title() for colour in colours) for seat, colours in enumerate(view["colours"])}


def _token(colour: str) -> dict:
    return {"colour": colour, "letter": LETTER[colour]}


def _cell(
    square: int,
    view: dict,
    step: str,
    acting: bool,
    targets: set[str],
    returned: dict,
    in_play: set[str],
    changed: dict[str, dict],
    span: int,
) -> dict:
    name = square_name(square)
    kind = mat(square)
    pilgrim = view["board"].get(name)
    out = (kind == "purple" and not view["purple_in_play"]) or name in view["unused_entrances"]
    crescent = COLOURS[CRESCENT_COLOUR[square]] if square in CRESCENT_COLOUR else None
    cell = {
        "name": name,
        "mat": kind,
        "out": out,
        "pilgrim": _token(pilgrim) if pilgrim else None,
        "crescent": _token(crescent) if crescent in in_play else None,  # black and white need 5 or 6 colours
        "entrance": ENTRANCES.index(square) + 1 if square in ENTRANCES else None,
        "close": square in CLOSE_TO_KAABA,
        "target": name in targets,
        "returned": _token(returned[name]) if name in returned and not pilgrim else None,
        "last": changed.get(name),
        "move": None,
    }
    if acting:
        # Every square may be clicked, the Kaaba and the taken ones too: a refused one comes
        # back with the reason (only the marked ones are Tab stops).
        cell["move"] = "x" + name if step == "remove" else name
    cell["label"] = _label(cell, step, span)
    cell["move_said"] = _move_said(cell, step) if cell["target"] else ""
    return cell


# A marked square, said after its name: what choosing it does ("allowed" alone leaned on the prompt).
TARGET_WORDS = {
    "entrance": "you may choose this entrance",
    "place": "a pilgrim may go here",
    "remove": "may be removed",
}


def _move_said(cell: dict, step: str) -> str:
    """A marked square's move in words, as the Confirm bar offers it ("Confirm: Choose entrance 1 (f1)"); its
    label, said as a square ("f1, entrance 1, you may choose this entrance"), read oddly there."""
    if step == "entrance":
        return f"Choose entrance {cell['entrance']} ({cell['name']})"
    if step == "remove":
        return f"Remove the {cell['pilgrim']['colour']} pilgrim on {cell['name']}"
    return f"Place a pilgrim on {cell['name']}"


LAST_WORDS = {
    PLACED: "placed {when}",
    REMOVED: "its {colour} pilgrim removed {when}",
    RETURNED: "its {colour} pilgrim gone back to its owner {when}",
}


def _label(cell: dict, step: str, span: int) -> str:
    """What a screen reader says for the square."""
    words = [cell["name"]]
    if cell["pilgrim"]:
        words.append(f"{cell['pilgrim']['colour']} pilgrim")
    elif cell["mat"] == "kaaba":
        words.append("the Kaaba")
    if cell["last"]:
        words.append(LAST_WORDS[cell["last"]["kind"]].format(colour=cell["last"]["colour"], when=last_span_words(span)))
    if cell["crescent"]:
        words.append(f"{cell['crescent']['colour']} crescent")
    if cell["entrance"]:
        words.append(f"entrance {cell['entrance']}" + (" (not in play)" if cell["out"] else ""))
    elif cell["out"]:
        words.append("purple mat, not in play")
    if cell["close"]:
        words.append("close to the Kaaba")
    if cell["target"]:
        words.append(TARGET_WORDS[step])
    return ", ".join(words)


def _changes(last: LastMove | None) -> tuple[dict[str, dict], int]:
    """Each square the moves of ``last`` changed (its latest change), numbered in the order
    they happened; and how many moves that is."""
    marks: dict[str, dict] = {}
    if not last:
        return marks, 0
    state, span, happened = _state(last.before), 0, 0
    for seat, move in last.played:
        try:
            after = MECCA.apply(state, seat, move)
        except IllegalMove:
            break  # moves that do not follow from ``before`` (a bug elsewhere) mark what they can, not break the page
        for name, kind, colour in _events(state, after, MECCA.normalize(move)):
            marks[name] = {"kind": kind, "order": min(happened, LAST_ORDER_CAP), "colour": colour}
            happened += 1
        state, span = after, span + 1
    return marks, span


def _events(state: State, after: State, move: str) -> list[tuple[str, str, str]]:
    """What one move did, square by square, as (square, what, the pilgrim's colour)."""
    parsed = parse_move(move)
    if parsed.kind == "place" and parsed.square is not None:
        return [(square_name(parsed.square), PLACED, COLOURS[state.colour])]
    removal = after.last_removal
    if parsed.kind != "remove" or removal is None:
        return []  # a pass
    gone = [(square_name(removal.square), REMOVED, COLOURS[removal.colour])]
    return gone + [(square_name(square), RETURNED, COLOURS[colour]) for square, colour in removal.returned]


def _state(view: dict) -> State:
    """The position a view shows (the seed only serves the AI)."""
    return MECCA.load(
        {
            "players": len(view["colours"]),
            "seed": 0,
            "board": view["board"],
            "hand": view["in_hand"],
            "entrances": view["entrances"],
            "step": view["step"],
            "colour": view["colour_to_act"],
            "placed": view["placed_this_turn"],
            "round": view["round"],
            "final_round": view["final_round"],
            "last_removal": view["last_removal"],
            "passed": view["passed"],
            "reason": view["reason"],
            "moves_played": view["moves_played"],
            "recent_removals": view["recent_removals"],
        }
    )


def _picture_label(view: dict) -> str:
    """The board as a picture says (the home page): a short line, not every square."""
    pilgrims = len(view["board"])
    return f"A Mecca board: the compound round the Kaaba, with {pilgrims} pilgrim{'s' if pilgrims != 1 else ''} placed"


def _returned(view: dict) -> dict[str, str]:
    """Squares emptied by the removals a player coming back has not seen (every one since
    each colour's own last turn): the removed pilgrims and every isolated one."""
    squares = {}
    for removal in view["recent_removals"]:
        squares[removal["square"]] = removal["colour"]
        squares.update({name: colour for name, colour in removal["returned"]})
    return squares


def _colours(view: dict, seat: int | None) -> list[dict]:
    owners = {colour: s for s, colours in enumerate(view["colours"]) for colour in colours}
    return [
        {
            **_token(colour),
            "seat": owners[colour],
            "player": owners[colour] + 1,
            "mine": owners[colour] == seat,
            "in_hand": view["in_hand"][colour],
            "entrance": view["entrances"].get(colour, ""),
            "to_act": colour == view["colour_to_act"],
        }
        for colour in view["order"]
    ]


def _prompt(view: dict, acting: bool) -> str:
    colour = view["colour_to_act"]
    if colour is None:
        return ""
    who = "You" if acting else colour.capitalize()
    mover = f"{who} ({colour})" if acting else who
    if view["step"] == "entrance":
        return f"{mover}: choose a free entrance square."
    if view["step"] == "remove":
        return f"{mover} may remove one pilgrim that touches two or more of one colour (marked), or pass."
    k = view["placement"]
    nth = ORDINALS.get(k, f"{k}th")
    if k == 1:
        need = "it must touch exactly one pilgrim, of another colour"
    else:
        need = f"it must touch exactly {NUMBERS.get(k, k)} pilgrims of {NUMBERS.get(k, k)} other colours"
    if view["round"] == 1:
        return f"{mover}: place {'your' if acting else 'its'} one pilgrim of the first round; {need}."
    limit = min(view["max_per_turn"], k - 1 + view["in_hand"][colour])  # a short hand places fewer
    return f"{mover}: place the {nth} pilgrim of the turn (up to {limit}); {need}."


def _notes(view: dict) -> list[str]:
    notes = []
    if view["first_round"] and view["step"] == "place":
        notes.append("First round: one pilgrim each.")
    if view["final_round"] and not view["over"]:
        # Name the colours of the player who emptied his hand (a removal may since have given some back).
        emptied = [colours for colours in view["colours"] if not any(view["in_hand"][c] for c in colours)]
        if len(emptied) == 1:
            who = " and ".join(colour.capitalize() for colour in emptied[0])
            whose = "their" if len(emptied[0]) > 1 else "its"
        else:
            who, whose = "A player", "his"
        notes.append(f"{who} placed all {whose} pilgrims: this is the last round.")
    for removal in view["recent_removals"]:
        line = f"{removal['by'].capitalize()} removed the {removal['colour']} pilgrim on {removal['square']}"
        if removal["returned"]:
            gone = ", ".join(f"the {colour} pilgrim on {name}" for name, colour in removal["returned"])
            line += f"; {gone}, left with no neighbour, went back too"
        notes.append(line + ".")
    notes += [f"{colour.capitalize()} could not place and passed." for colour in view["passed"]]
    return notes


def _reason(view: dict) -> dict:
    """Why the game ended; ``emptied_by`` is the player who placed all their pilgrims (counted
    from 1, with their colours) when that was one player, whom the template names."""
    emptied = [score for score in view["scores"] if score["placed_all"]]
    if view["reason"] == "emptied" and len(emptied) == 1:
        by = {"player": emptied[0]["seat"] + 1, "colours": " and ".join(emptied[0]["colours"])}
        return {"reason": PLACED_ALL, "emptied_by": by}
    return {"reason": REASONS.get(view["reason"], ""), "emptied_by": None}


def _scores(view: dict, seat: int | None) -> list[dict]:
    winners = set(view["winners"])
    return [
        {
            **score,
            "player": score["seat"] + 1,
            "tokens": [_token(colour) for colour in score["colours"]],
            "winner": score["seat"] in winners,
            "mine": score["seat"] == seat,
        }
        for score in view["scores"]
    ]
