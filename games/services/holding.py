"""Taking back a step. In a game whose turn is several steps (``games.boards.takes_back``: Mecca,
Mesopotamia), a step that neither ends its player's turn nor reveals anything to them is held on
their seat (``Seat.held``) rather than played. The match's state stays at the start of the turn,
so nobody else sees a held step; the mover's page shows the position rebuilt from there. The
held steps are played, each as its own move record, in the transaction of the step that ends the
turn or reveals something (a tile or a card drawn), and can no longer be taken back. The move log
only ever holds what was played: it stays append-only and the replay exact."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.boards import step_reveals, takes_back
from games.engine import Game
from games.models import Match, Seat, Status
from games.services.base import lock_match_with_seats, seat_of
from games.services.errors import (
    NOT_IN_PLAY,
    NOT_STARTED,
    NOT_YOUR_MATCH,
    STALE_MOVE,
    MoveRejected,
    NotAllowed,
    StaleMove,
)

NOTHING_HELD = "No step of this turn can be taken back: it has none yet, or it revealed something new."


def held_steps(match: Match, seat: Seat | None) -> list[str]:
    """The steps ``seat`` holds, in order: none once the match moved on (a move, a timeout) since."""
    if seat is None or match.status != Status.ACTIVE or seat.held_at != match.version:
        return []
    return list(seat.held)


def positions(game: Game, state, seat: int, steps: list[str]) -> list:
    """The positions ``steps`` of ``seat`` pass through from ``state`` (the start of the turn):
    ``state`` first, the position after the last step last."""
    passed = [state]
    for step in steps:
        passed.append(game.apply(passed[-1], seat, step))
    return passed


def may_hold(game: Game, seat: int, before, after) -> bool:
    """Whether the step from ``before`` to ``after`` can wait to be played: the game's turns may be
    taken back, the same player still acts alone after it, and it showed them nothing new."""
    if not takes_back(game.slug) or game.is_over(after):
        return False
    if tuple(game.to_act(before)) != (seat,) or tuple(game.to_act(after)) != (seat,):
        return False
    return not step_reveals(game.slug, game.view(before, seat), game.view(after, seat))


def hold(match: Match, seat: Seat, steps: list[str], *, looking: bool = False) -> None:
    """Keep ``steps`` on the seat; ``looking``: its player has the page open (``Seat.last_seen_at``)."""
    seat.held, seat.held_at = steps, match.version
    seen = {"last_seen_at": timezone.now()} if looking else {}
    Seat.objects.filter(pk=seat.pk).update(held=steps, held_at=match.version, **seen)
    for field, value in seen.items():
        setattr(seat, field, value)


@transaction.atomic
def step_take_back(*, match_id: int, user: User, expected_version: int, expected_held: int) -> Match:
    """Take back the last step ``user`` holds, on the page that showed ``expected_held`` of them
    at ``expected_version`` (which they are looking at). Sent twice (a double click), the second
    finds it done already. The match comes back with its seats, for the page to draw."""
    match, seats = lock_match_with_seats(match_id)
    seat = seat_of(seats, user)
    if seat is None:
        raise NotAllowed(NOT_YOUR_MATCH)
    if match.status != Status.ACTIVE:
        raise MoveRejected(NOT_STARTED if match.status == Status.OPEN else NOT_IN_PLAY)
    steps = held_steps(match, seat)
    if expected_version == match.version and expected_held == len(steps) + 1:
        return match  # taken back by the first of two presses
    if expected_version != match.version or expected_held != len(steps):
        raise StaleMove(STALE_MOVE)
    if not steps:
        raise MoveRejected(NOTHING_HELD)
    hold(match, seat, steps[:-1], looking=True)
    return match
