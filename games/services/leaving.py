"""Leaving a match: a player resigns, a clock runs out, staff give a seat to the AI or abort the
match. With more than two players the AI takes the seat and the match plays on."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from games import signals
from games.models import Match, OnTimeout, Seat, Status
from games.services.base import (
    ai_to_move,
    because,
    lock_match,
    readers,
    record_event,
    seat_of,
    seats_locked,
    set_status,
    tell_of_cancelling,
    tell_the_result,
)
from games.services.clocks import CLOCK_FIELDS, stop_all_clocks
from games.services.errors import NOT_IN_PLAY, NOT_YOUR_MATCH, UNKNOWN_AI_LEVEL, NotAllowed, ServiceError
from games.services.turns import start_if_full

RESIGN_BEFORE_START = (
    "This match has not started yet, so there is nothing to resign: decline the invitation, "
    "or withdraw the match if you created it."
)


ALREADY_ENDED = {  # why staff cannot abort a match
    Status.ABORTED: "This match is already cancelled.",
    Status.FINISHED: "This match is already over; there is nothing to abort.",
}


def hand_seat_to_ai(match: Match, seats: list[Seat], seat: Seat, *, level: int, reason: str, actor) -> None:
    if seat.user_id:
        signals.clocks_stopped.send(Match, match_ids=[match.pk], user_ids=[seat.user_id])
        seat.former_user = seat.user  # they may still watch (an invited one too: the email says so)
        # In play they took part, and hear how it ends; before the start (an invitation withdrawn) they took none.
        seat.taken_over_at = timezone.now() if match.status == Status.ACTIVE else None
    seat.user, seat.ai_level, seat.accepted = None, level, True
    seat.deadline = seat.clock_started_at = seat.bank_seconds = seat.paused_seconds = None  # the AI has no clock
    seat.reminded_share = 0
    seat.save(update_fields=["user", "ai_level", "accepted", "former_user", "taken_over_at", *CLOCK_FIELDS])
    record_event(match, reason=reason, actor=actor, in_log=True)
    if match.status == Status.ACTIVE and seat.to_act:
        ai_to_move(match, seats)


@transaction.atomic
def match_resign(*, match_id: int, user: User) -> Match:
    """Two players: the other one wins. More: the AI takes the seat and plays on."""
    match = lock_match(match_id)
    seats = seats_locked(match)
    seat = seat_of(seats, user)
    if seat is None:  # first: "decline the invitation" would be no answer for someone not invited
        raise NotAllowed(NOT_YOUR_MATCH)
    if match.status != Status.ACTIVE:
        raise ServiceError(RESIGN_BEFORE_START if match.status == Status.OPEN else NOT_IN_PLAY)
    if len(seats) > 2:
        hand_seat_to_ai(
            match,
            seats,
            seat,
            level=max(match.game_obj.ai_levels),
            reason=f"{user.public_name} resigned; the AI plays on.",
            actor=user,
        )
        return match
    winners = [s.number for s in seats if s.number != seat.number]
    match.result = {"scores": [], "winners": winners, "reason": f"{user.public_name} resigned"}
    match.finished_at = timezone.now()
    set_status(match, Status.FINISHED, reason=f"{user.public_name} resigned.", actor=user, in_log=True)
    stop_all_clocks(match)
    match.save(update_fields=["status", "result", "finished_at"])
    tell_the_result(match, seats, readers(seats, but=user.pk))
    return match


@transaction.atomic
def match_timeout(*, match_id: int, expected_version: int, now: datetime | None = None) -> list[int]:
    """Apply the timeout of every seat whose deadline passed, once: the match row is locked
    and the version and deadlines re-checked, so a move that got in first wins."""
    now = now or timezone.now()
    match = lock_match(match_id)
    if match.status != Status.ACTIVE or match.version != expected_version:
        return []
    seats = seats_locked(match)
    late = [seat for seat in seats if seat.to_act and seat.deadline is not None and seat.deadline <= now]
    if not late:
        return []
    # A turn whose clock ran out: counted for how reliable players are.
    Seat.objects.filter(match=match, number__in=[seat.number for seat in late]).update(
        turns=F("turns") + 1, timeouts=F("timeouts") + 1
    )
    people = [(seat, seat.user) for seat in seats if seat.user_id]
    names = ", ".join(seat.occupant_name for seat in late)
    if len(seats) == 2 and match.on_timeout == OnTimeout.LOSE:
        loser = late[0]
        match.result = {
            "scores": [],
            "winners": [s.number for s in seats if s.number != loser.number],
            "reason": f"{loser.occupant_name} ran out of time",
        }
        match.finished_at = now
        set_status(match, Status.FINISHED, reason=f"{loser.occupant_name} ran out of time.", in_log=True)
        stop_all_clocks(match)
        match.save(update_fields=["status", "result", "finished_at"])
        what = f"{loser.occupant_name} ran out of time and lost, so you won."  # two players: the reader won
        yours = "You ran out of time and lost."
        # Whoever's seat the AI took earlier hears the result as after any other end of the match.
        tell_the_result(match, seats, [(seat, user) for seat, user in readers(seats) if seat.user_id is None])
    else:
        level = max(match.game_obj.ai_levels)
        for seat in late:
            hand_seat_to_ai(
                match,
                seats,
                seat,
                level=level,
                actor=None,
                reason=f"{seat.occupant_name} ran out of time; the AI plays on.",
            )
        what = f"{names} ran out of time; the AI plays on."
        yours = "You ran out of time; the AI took your seat and plays on. You can still watch the match."
    late_users = {seat.former_user_id or seat.user_id for seat in late}
    for _, user in people:
        signals.timed_out.send(Match, match=match, user=user, what=yours if user.pk in late_users else what)
    return [seat.number for seat in late]


@transaction.atomic
def seat_replace_by_ai(
    *, match_id: int, seat_number: int, level: int, actor: User | None, reason: str, why: str = ""
) -> Match:
    """Staff give a seat to the AI (``reason``: theirs, in the move log and told to the player).
    ``why``: the whole sentence instead, when it was no staff decision (a player closed their account)."""
    match = lock_match(match_id)
    if match.status not in (Status.OPEN, Status.ACTIVE):
        raise ServiceError(NOT_IN_PLAY)
    if level not in match.game_obj.ai_levels:
        raise ServiceError(UNKNOWN_AI_LEVEL.format(game=match.game_obj.name, level=level))
    seats = seats_locked(match)
    seat = seats[seat_number]
    person, invited, before = seat.user, not seat.accepted, seat.occupant_name
    staff_reason = because(reason)
    if seat.is_ai and seat.ai_level == level:
        raise ServiceError(f"The AI already plays seat {seat_number + 1} at that level.")
    if seat.is_ai:  # another level: staff make the game easier or harder for the others
        former_level, seat.ai_level = seat.ai_level, level
        seat.save(update_fields=["ai_level"])
        record_event(
            match,
            reason=f"Staff gave seat {seat_number + 1} to {seat.occupant_name} instead of {before}{staff_reason}",
            actor=actor,
            in_log=True,
            level_change=(seat_number, former_level),
        )
        if match.status == Status.ACTIVE and seat.to_act:
            ai_to_move(match, seats)
        return match
    if person is None:
        whose = f"the open seat (player {seat_number + 1})"
    else:
        whose = f"{before}'s {'invited ' if invited else ''}seat"
    hand_seat_to_ai(
        match, seats, seat, level=level, reason=why or f"Staff gave {whose} to the AI{staff_reason}", actor=actor
    )
    if person is not None:
        told = why or f"Staff gave your {'invited ' if invited else ''}seat to the AI{staff_reason}"
        signals.seat_taken.send(Match, match=match, user=person, why=told, invited=invited)
    if match.status == Status.OPEN:
        start_if_full(match, seats, actor=actor)
    return match


@transaction.atomic
def match_abort(*, match_id: int, actor: User | None, reason: str, why: str = "") -> Match:
    """Staff end a match that is not over (``reason``: theirs, told to the players). ``why``: the
    whole sentence instead, when it was no staff decision (a player closed their account)."""
    match = lock_match(match_id)
    if match.status in ALREADY_ENDED:
        raise ServiceError(ALREADY_ENDED[match.status])
    why = why or f"Staff aborted the match{because(reason)}"
    set_status(match, Status.ABORTED, reason=why, actor=actor, in_log=True)
    stop_all_clocks(match)
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "finished_at"])
    tell_of_cancelling(match, seats_locked(match), why)
    return match
