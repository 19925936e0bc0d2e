"""How the site names seats and writes the engines' sentences with the players' names: the move
log, the result, emails and the replay all read through here."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from games.engine.words import Part, Who

if TYPE_CHECKING:
    from games.models import MatchEvent, MoveRecord, Seat


def seat_names(seats: list[Seat]) -> dict[int, str]:
    """Each seat's name for a sentence, with its number where seats share a name (three
    "AI (Strong)" seats), so that "... wins" always says who."""
    return _told_apart({seat.number: seat.occupant_name for seat in seats})


def _told_apart(names: dict[int, str]) -> dict[int, str]:
    count = Counter(names.values())
    return {
        number: name if count[name] == 1 else with_detail(name, f"player {number + 1}")
        for number, name in names.items()
    }


def names_in_words(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C", as the match page lists names."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def scores_by_name(names: dict[int, str], scores: list[int]) -> str:
    """A result's scores with whose they are: "Alice 24, AI (Easy) 23"."""
    return ", ".join(f"{names[number]} {points}" for number, points in enumerate(scores))


def seat_names_at(
    seats: list[Seat], moves: list[MoveRecord], level_changes: list[MatchEvent], ply: int
) -> dict[int, str]:
    """``seat_names`` as they were after ``ply`` moves: a seat the AI took over later still
    bears its former player's name there, and an AI whose level staff changed later its
    former level, as the log, written at the time, does. ``level_changes`` oldest first."""
    names = {}
    for seat in seats:
        if seat.former_user_id is not None and _before_the_ai_moved(seat, moves, ply):
            names[seat.number] = seat.former_user.public_name
        elif seat.is_ai:
            names[seat.number] = seat.ai_name(_ai_level_at(seat, level_changes, ply))
        else:
            names[seat.number] = seat.occupant_name
    return _told_apart(names)


def _before_the_ai_moved(seat: Seat, moves: list[MoveRecord], ply: int) -> bool:
    first_ai = next((move.ply for move in moves if move.seat == seat.number and move.by_ai), None)
    return first_ai is None or ply <= first_ai


def _ai_level_at(seat: Seat, level_changes: list[MatchEvent], ply: int) -> int:
    """A change made after move N counts from position N + 1 (position N shows move N, made
    at the former level); one made before the first move counts from the start."""
    for change in level_changes:
        if change.seat == seat.number and ply < (change.ply + 1 if change.ply else 0):
            return change.former_ai_level
    return seat.ai_level


SEAT_NUMBER = re.compile(r"(?:, player \d(?=\)$)| \(player \d\)$)")  # seat_names' way of telling same names apart


def in_names(parts: Iterable[Part], names: dict[int, str]) -> str:
    """An engine's sentence (``games.engine.words``) with each seat named as the seat list names
    it: "Bob sows tile 4". A seat the game names by colour keeps it: "Bob (green) places …", or
    "AI (Easy, green) places …" (the colour then tells three "AI (Easy)" seats apart); an owner is
    "Bob's b2", or "AI (Easy, blue)'s b2". A seat without a name keeps the engine's word for it."""
    return "".join(part if isinstance(part, str) else _named(part, names) for part in parts)


def _named(who: Who, names: dict[int, str]) -> str:
    name = names.get(who.seat)
    if name is None:
        return who.plain()
    if who.colour and not (who.possessive and not name.endswith(")")):
        name = with_colour(name, who.colour)
    return f"{name}'s" if who.possessive else name


def with_colour(name: str, colour: str) -> str:
    """A seat's name with its colour words: "Bob (red)", and "AI (Easy, red)", not
    "AI (Easy, player 2, red)": the colour tells two AI (Easy) seats apart."""
    return with_detail(SEAT_NUMBER.sub("", name), colour)


def with_detail(name: str, detail: str) -> str:
    """ "Bob (red)", and "AI (Easy, red)" rather than "AI (Easy) (red)"."""
    return f"{name[:-1]}, {detail})" if name.endswith(")") else f"{name} ({detail})"
