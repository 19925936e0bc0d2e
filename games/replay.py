"""Rebuilding positions from the seed and the move records (the replay and its check)."""

from __future__ import annotations

from games.models import Match, MoveRecord


def initial_state(match: Match):
    game = match.game_obj
    return game.initial_state(len(match.seats.all()), match.options, match.seed)


def replay_state(match: Match, moves: list[MoveRecord]):
    """The position after ``moves`` (the match's first moves, in order)."""
    game = match.game_obj
    state = initial_state(match)
    for record in moves:
        state = game.apply(state, record.seat, record.notation)
    return state


def positions_count(moves: list[MoveRecord]) -> int:
    return len(moves) + 1
