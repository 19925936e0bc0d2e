"""Why a move is refused, in the words a player at the table would use."""

from __future__ import annotations

from games.rules.mecca.board import COLOURS, ENTRANCES, KAABA, NEIGHBOURS, PURPLE, square_name
from games.rules.mecca.notation import parse_move
from games.rules.mecca.rules import ENTRANCE, PLACE, REMOVE, State, is_removable, removal_threshold

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}

PICK_AN_ENTRANCE = "First every colour takes an entrance: choose one of the free entrance squares ({free})."
ENTRANCE_TAKEN = "That entrance is already taken by {colour}."
NO_REMOVAL_IN_SETUP = "Nothing can be removed during set-up: choose a free entrance square ({free})."
NO_PASS_IN_SETUP = "There is nothing to pass during set-up: choose a free entrance square ({free})."
KAABA_SQUARE = "The Kaaba is never played."
PURPLE_OUT = "The purple mats are only used with 3, 5 or 6 players."
UNUSED_ENTRANCE = "Entrance squares not chosen at set-up are never played."
TAKEN = "There is already a {colour} pilgrim on {square}."
ALONE = "A pilgrim can never be alone: this square touches no pilgrim."
OWN_COLOUR = "This square touches a {colour} pilgrim, and a pilgrim may never touch one of its own colour."
SAME_COLOUR_TWICE = (
    "This square touches {count} {colour} pilgrims; the pilgrims it touches must all be of different colours."
)
WRONG_COUNT_FIRST = "Your 1st pilgrim must touch exactly one pilgrim, of another colour; this square touches {count}."
WRONG_COUNT = "Your {nth} pilgrim must touch exactly {k} pilgrims of {k} other colours; this square touches {count}."
PLACING_IS_COMPULSORY = "Placing is compulsory: place your {nth} pilgrim on one of the marked squares."
REMOVE_NEEDS_PLACEMENTS = "You may remove a pilgrim only after placing {threshold} in one turn."
PLACE_BEFORE_REMOVING = (
    "Placing comes first: a square still takes your {nth} pilgrim, so place it on a marked square; then you may remove."
)
DONE_PLACING = "You have placed all you can this turn: remove a pilgrim next to two of one colour, or pass."
NOTHING_THERE = "There is no pilgrim on {square}."
ENTRANCE_PILGRIM = "Pilgrims on entrance squares can never be removed."
NOT_REMOVABLE = "Only a pilgrim next to two or more pilgrims of one same colour may be removed."


def nth(k: int) -> str:
    return ORDINALS.get(k, f"{k}th")


def why_not(state: State, move: str) -> str | None:
    """The reason ``move`` is refused, or None when nothing better than the default applies."""
    try:
        parsed = parse_move(move)
    except ValueError as error:
        return str(error)
    if state.step == ENTRANCE:
        return _why_not_entrance(state, parsed.kind, parsed.square)
    if state.step == PLACE:
        if parsed.kind == "pass":
            return PLACING_IS_COMPULSORY.format(nth=nth(state.placed + 1))
        if parsed.kind == "remove" and state.placed >= removal_threshold(state.colours):
            return PLACE_BEFORE_REMOVING.format(nth=nth(state.placed + 1))  # as many as you can, first
        if parsed.kind == "remove":
            return REMOVE_NEEDS_PLACEMENTS.format(threshold=removal_threshold(state.colours))
        assert parsed.square is not None  # only a pass names no square, and it was answered above
        return why_not_here(state, parsed.square)
    if state.step == REMOVE:
        return DONE_PLACING if parsed.kind == "place" else _why_not_removable(state, parsed.square)
    return None


def _why_not_entrance(state: State, kind: str, square: int | None) -> str | None:
    free = ", ".join(square_name(sq) for sq in ENTRANCES if sq not in state.entrances)
    if kind == "pass":
        return NO_PASS_IN_SETUP.format(free=free)
    if kind != "place":
        return NO_REMOVAL_IN_SETUP.format(free=free)
    if square in state.entrances:
        return ENTRANCE_TAKEN.format(colour=COLOURS[state.entrances.index(square)])
    if square not in ENTRANCES:
        return PICK_AN_ENTRANCE.format(free=free)
    return None


def why_not_here(state: State, square: int) -> str | None:
    """Why the colour to act may not put its next pilgrim on ``square``."""
    if square in KAABA:
        return KAABA_SQUARE
    if square in PURPLE and state.colours == 4:
        return PURPLE_OUT
    if state.board[square] >= 0:
        return TAKEN.format(colour=COLOURS[state.board[square]], square=square_name(square))
    if square in ENTRANCES:
        return UNUSED_ENTRANCE
    around = [state.board[n] for n in NEIGHBOURS[square] if state.board[n] >= 0]
    if not around:
        return ALONE
    if state.colour in around:
        return OWN_COLOUR.format(colour=COLOURS[state.colour])
    twice = next((c for c in around if around.count(c) > 1), None)
    if twice is not None:
        return SAME_COLOUR_TWICE.format(count=NUMBERS[around.count(twice)], colour=COLOURS[twice])
    k = state.placed + 1
    if len(around) != k:
        count = NUMBERS.get(len(around), len(around))
        if k == 1:
            return WRONG_COUNT_FIRST.format(count=count)
        return WRONG_COUNT.format(nth=nth(k), k=NUMBERS.get(k, k), count=count)
    return None


def _why_not_removable(state: State, square: int | None) -> str | None:
    if square is None:
        return None
    if square in KAABA:
        return KAABA_SQUARE
    if state.board[square] < 0:
        return NOTHING_THERE.format(square=square_name(square))
    if square in ENTRANCES:
        return ENTRANCE_PILGRIM
    if not is_removable(state.board, square):
        return NOT_REMOVABLE
    return None
