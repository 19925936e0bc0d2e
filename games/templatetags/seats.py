"""Seats in templates: a viewer's seat in a list of matches, and players by name on the
boards, whose presenters know only seat numbers ("Player 3")."""

from __future__ import annotations

from django import template

from games.engine import words
from games.models import Match, Seat
from games.naming import in_names, scores_by_name, with_colour

register = template.Library()


@register.filter
def player_name(names: dict[int, str] | None, number: int) -> str:
    """The name of player ``number`` (counted from 1, as the boards count), as the match
    page names seats; "Player N" where no names are given."""
    return (names or {}).get(int(number) - 1) or f"Player {number}"


@register.filter
def player_names(names: dict[int, str] | None, numbers: list[int]) -> list[str]:
    return [player_name(names, number) for number in numbers]


@register.filter
def coloured(name: str, colour: str) -> str:
    """A name with its colour as the move log writes it: "Bob (yellow)", "AI (Easy, yellow)"."""
    return with_colour(name, colour)


@register.filter
def scored(scores: list[int], names: dict[int, str]) -> str:
    return scores_by_name(names, scores)


@register.filter
def named(sentence: list | str, names: dict[int, str] | None) -> str:
    """An engine's sentence from a view (``games.engine.words.dump``: "Player 2 rolled 5") with the
    players' names, where given; a position stored before sentences had parts holds plain words."""
    if isinstance(sentence, str):
        return sentence
    return in_names(words.load(sentence), names or {})


@register.filter
def seat_of(match: Match, user) -> Seat | None:
    """The user's seat, found among the prefetched seats so that a list of matches costs no query per row."""
    return next((seat for seat in match.seats.all() if seat.user_id == user.pk), None)
