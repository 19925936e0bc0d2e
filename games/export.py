"""The player's matches in "Download my data" (``accounts.export``): every match they hold or held
a seat in, with its seat list, result and move log as the match page shows them. The log's lines
are the ones every viewer of the match reads (written with no secret in them:
tests/games/test_secrets.py); a move's notation only for the player's own moves (another seat's
can name a hidden offering: "hut 3 5"). Never a match's stored state or seed: they are not even
read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from itertools import groupby

from django.db.models import Prefetch, Q

from accounts.models import User
from games.boards import seat_colours
from games.engine import get_game
from games.models import Match, MatchEvent, MoveRecord, Seat, Status
from games.naming import seat_names

MATCHES_PER_READ = 50  # matches read together (4 queries): 200 long matches are 4 reads


def matches(user: User) -> Iterator[dict]:
    ids = list(
        Seat.objects.filter(Q(user=user) | Q(former_user=user))
        .order_by("match_id")
        .values_list("match_id", flat=True)
        .distinct()
    )
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user", "former_user"))
    for start in range(0, len(ids), MATCHES_PER_READ):
        chunk = ids[start : start + MATCHES_PER_READ]
        matches = Match.objects.filter(pk__in=chunk).defer("state", "seed").prefetch_related(seats).order_by("pk")
        moves = (
            MoveRecord.objects.filter(match_id__in=chunk)
            .order_by("match_id", "ply")
            .values_list("match_id", "ply", "seat", "notation", "description", "by_ai", "created_at")
        )
        events = MatchEvent.objects.filter(match_id__in=chunk, ply__isnull=False).order_by("match_id", "ply", "pk")
        moves_of = {match: list(rows) for match, rows in groupby(moves, key=lambda row: row[0])}
        events_of = {match: list(rows) for match, rows in groupby(events, key=lambda event: event.match_id)}
        for match in matches:
            yield _match(match, user, moves_of.get(match.pk, []), events_of.get(match.pk, []))


def _match(match: Match, user: User, moves: list[tuple], events: list[MatchEvent]) -> dict:
    seats = list(match.seats.all())
    names = seat_names(seats)  # as the result line and the log tell seats apart
    colours = _colours(match.game, len(seats), json.dumps(match.options, sort_keys=True))
    mine = next(seat for seat in seats if user.pk in (seat.user_id, seat.former_user_id))
    seated = mine.user_id == user.pk
    result = match.result or None
    return {
        "id": match.pk,
        "name": str(match),
        "game": match.game,
        "options": match.options,
        "options_label": match.options_label,
        "clock": match.clock_terms,
        "status": match.status,
        "created_at": match.created_at,
        "last_move_at": match.last_move_at,
        "finished_at": match.finished_at,
        "your_seat": {
            "number": mine.number + 1,
            "colour": colours.get(mine.number) or None,
            "seated": seated,
            "ai_took_it_at": None if seated else mine.taken_over_at,
        },
        "seats": [
            {
                "number": seat.number + 1,
                "name": seat.occupant_name,
                "colour": colours.get(seat.number) or None,
                "you": seat.user_id == user.pk,
                "replacing": seat.former_user.public_name if seat.former_user_id else None,
            }
            for seat in seats
        ],
        "result": result
        and {
            "winners": [names[number] for number in result.get("winners", [])],
            "scores": result.get("scores", []),
            "reason": result.get("reason", ""),
        },
        "your_result": _your_result(match, mine.number) if seated else None,
        # Every line of the log as the match page shows it; the notation of the player's own moves only.
        "moves": [
            {
                "number": ply + 1,
                "seat": seat + 1,
                "description": description,
                "at": at,
                **({"notation": notation} if seat == mine.number and not by_ai else {}),
            }
            for _, ply, seat, notation, description, by_ai, at in moves
        ],
        "log_events": [{"after_move": event.ply, "text": event.reason, "at": event.created_at} for event in events],
    }


def _your_result(match: Match, number: int) -> str | None:
    """As My matches says it: "won", "shared win", "lost"."""
    if match.status != Status.FINISHED or not match.result:
        return None
    winners = match.result.get("winners", [])
    if number not in winners:
        return "lost"
    return "shared win" if len(winners) > 1 else "won"


@lru_cache(maxsize=64)
def _colours(slug: str, players: int, options: str) -> dict[int, str]:
    """Each seat's colours in words, as the seat list gives them. They follow from the number of
    players alone, so they are read from a new game's public view, not from the match's state."""
    game = get_game(slug)
    return seat_colours(slug, game.view(game.initial_state(players, json.loads(options), 0), None))
