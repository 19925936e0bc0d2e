"""How the site names seats and writes the engines' sentences with the players' names: the move
log, the result, emails and the replay all read through here."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

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


PLAYER_NUMBER = re.compile(r"\bPlayer ([1-9])\b")  # how the Mancala and Jeexa engines name seats
CAPITALISED = re.compile(r"\b([A-Z][a-z]+)\b('s)?")  # Mecca and Mesopotamia name a player by colour ("Green")
SEAT_NUMBER = re.compile(r"(?:, player \d(?=\)$)| \(player \d\)$)")  # seat_names' way of telling same names apart


def with_player_names(text: str, names: dict[int, str], colours: dict[int, str] | None = None) -> str:
    """An engine's sentence with each "Player N" replaced by that seat's name ("Bob sows
    tile 4"), as the seat list names players. Where the engine names players by colour,
    ``colours`` gives each seat's colour words as the seat list shows them ("Yellow and
    Green"): "Green places …" becomes "Bob (green) places …", or "AI (Easy, green) places …"
    (the colour then tells three "AI (Easy)" seats apart), and "Blue's b2" becomes "Bob's b2".
    A pilgrim's or piece's colour is written in small letters and stays."""
    text = PLAYER_NUMBER.sub(lambda found: names.get(int(found[1]) - 1, found[0]), text)
    owners = {word: seat for seat, words in (colours or {}).items() for word in words.split(" and ") if word}

    def named(found: re.Match) -> str:
        seat = owners.get(found[1])
        if seat is None or seat not in names:
            return found[0]
        if found[2] and not names[seat].endswith(")"):
            return f"{names[seat]}'s"
        return with_colour(names[seat], found[1].lower()) + (found[2] or "")

    return CAPITALISED.sub(named, text) if owners else text


def with_colour(name: str, colour: str) -> str:
    """A seat's name with its colour words: "Bob (red)", and "AI (Easy, red)", not
    "AI (Easy, player 2, red)": the colour tells two AI (Easy) seats apart."""
    return with_detail(SEAT_NUMBER.sub("", name), colour)


def with_detail(name: str, detail: str) -> str:
    """ "Bob (red)", and "AI (Easy, red)" rather than "AI (Easy) (red)"."""
    return f"{name[:-1]}, {detail})" if name.endswith(")") else f"{name} ({detail})"
