"""Playing: a match starts, moves are made (by people and by the AI), and after each one the
seats, clocks and status follow the new position."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db import transaction
from django.db.models import Case, DateTimeField, F, PositiveIntegerField, Value, When
from django.utils import timezone

from accounts.models import User
from games import selectors, signals
from games.engine import IllegalMove
from games.models import DAY, Match, MoveRecord, Seat, Status, TimeControl
from games.naming import in_names, seat_names
from games.services import holding
from games.services.base import (
    ai_to_move,
    lock_match_with_seats,
    readers,
    seat_of,
    set_status,
    tell_the_result,
)
from games.services.clocks import update_clocks
from games.services.errors import (
    NOT_IN_PLAY,
    NOT_STARTED,
    NOT_YOUR_MATCH,
    STALE_MOVE,
    MoveRejected,
    NotAllowed,
    StaleMove,
)

NOT_YOUR_TURN = "It is not your turn."
TIME_RAN_OUT = "Your time for this move ran out."


def start(match: Match, seats: list[Seat], *, actor: User | None) -> None:
    set_status(match, Status.ACTIVE, reason="Every seat is taken.", actor=actor)
    if match.time_control == TimeControl.BANK:
        bank = match.bank_initial_days * DAY
        Seat.objects.filter(match=match, user__isnull=False).update(bank_seconds=bank)
        for seat in seats:
            seat.bank_seconds = bank if seat.user_id else None
    # The player whose action started the match is looking at it: no email for them.
    actor_seat = next((seat for seat in seats if actor and seat.user_id == actor.pk), None)
    after_position_change(match, seats, mover=actor_seat.number if actor_seat else None, last_move="")
    if actor_seat is not None and actor_seat.to_act:
        # No email for them, yet the match may wait for them for days (a digest player's digest counts it).
        signals.turn_started.send(Match, match=match, seat=actor_seat, watching=True)


def start_if_full(match: Match, seats: list[Seat], *, actor: User) -> None:
    if all(seat.accepted and not seat.is_open for seat in seats):
        start(match, seats, actor=actor)
    else:  # a seat was taken: a match that is filling up gets its whole waiting time again
        match.open_until, match.open_until_told = open_until(), False
    match.save()


def open_until() -> datetime:
    return timezone.now() + timedelta(days=settings.OPEN_MATCH_EXPIRY_DAYS)


def after_position_change(
    match: Match, seats: list[Seat], *, mover: int | None, last_move: str, looking: bool = False
) -> None:
    """Bring seats, status, AI tasks and emails in line with the match's new state. ``looking``:
    the mover has the match page open (their seat's presence is written with the rest)."""
    game = match.game_obj
    state = game.load(match.state)
    to_act = set(game.to_act(state))
    before = {seat.number for seat in seats if seat.to_act}
    update_clocks(match, seats, before=before, after=set() if game.is_over(state) else to_act)
    # A person's turn on a clock ended with their move: counted for how reliable players are.
    finished_turns = [
        seat.number
        for seat in seats
        if seat.number == mover and mover in before and mover not in to_act and seat.user_id is not None
    ]
    if match.time_control == TimeControl.NONE:
        finished_turns = []
    now = timezone.now()
    seen = Case(When(number=mover, then=Value(now)), default=F("last_seen_at"), output_field=DateTimeField())
    Seat.objects.filter(match=match).update(
        to_act=Case(When(number__in=to_act, then=Value(True)), default=Value(False)),
        turns=Case(
            When(number__in=finished_turns, then=F("turns") + 1),
            default=F("turns"),
            output_field=PositiveIntegerField(),
        ),
        **({"last_seen_at": seen} if looking else {}),
    )
    for seat in seats:
        seat.to_act = seat.number in to_act
        if looking and seat.number == mover:
            seat.last_seen_at = now
    if game.is_over(state):
        outcome = game.outcome(state)
        # A reason only where the scores do not explain the result (Mecca: an empty hand wins).
        reason = in_names(game.win_reason_parts(state), seat_names(seats)) or "played out"
        match.result = {"scores": list(outcome.scores), "winners": list(outcome.winners), "reason": reason}
        match.finished_at = timezone.now()
        set_status(match, Status.FINISHED, reason="The game ended.")
        moved = next((seat.user_id for seat in seats if seat.number == mover), None)
        tell_the_result(match, seats, readers(seats, but=moved), last_move=last_move)
        return
    for seat in seats:
        if seat.number not in to_act:
            continue
        if seat.is_ai:
            ai_to_move(match, seats)
        elif seat.user_id and seat.number != mover:
            signals.turn_started.send(Match, match=match, seat=seat, watching=False)


class Played(NamedTuple):
    record: MoveRecord | None  # None: the step is held (``games.services.holding``)
    match: Match  # as it stands after the move, with its seats (``match.seats.all()`` reads no more)
    seats: list[Seat]


def move_submit(**move) -> MoveRecord | None:
    """``move_play``'s record: the move played, or None for a step held."""
    return move_play(**move).record


@transaction.atomic
def move_play(
    *,
    match_id: int,
    move: str,
    expected_version: int,
    user: User | None = None,
    ai_seat: int | None = None,
    held: int | None = None,
    looking: bool = False,
) -> Played:
    """Apply one move by ``user`` (or by the AI on ``ai_seat``) to the version they saw.
    The same move sent twice by the same seat (a double click, a resent form) is the one
    already played: its record comes back and nothing else happens.

    ``held``: how many held steps the player's page showed (``games.services.holding``); the
    move is then played after them, and is held itself where it may be. Without it (the AI, a
    page older than taking back) every step is played at once. ``looking``: the player has the
    match page open, which the seat's write of the move records (``Seat.last_seen_at``)."""
    match, seats = lock_match_with_seats(match_id)
    if user is not None:
        seat = seat_of(seats, user)
        if seat is None:
            raise NotAllowed(NOT_YOUR_MATCH)
    else:
        seat = seats[ai_seat]
        if not seat.is_ai:
            raise NotAllowed("That seat is not played by the AI.")
    game = match.game_obj
    steps = holding.held_steps(match, seat)
    shown = held or 0
    if expected_version < match.version and (played := _same_move_played(match, seat, move, expected_version + shown)):
        return Played(played, match, seats)
    if expected_version == match.version and shown < len(steps) and steps[shown] == game.normalize(move):
        return Played(None, match, seats)  # held by the first of two presses
    if match.status != Status.ACTIVE:
        raise MoveRejected(NOT_STARTED if match.status == Status.OPEN else NOT_IN_PLAY)
    if expected_version != match.version or shown != len(steps):
        raise StaleMove(STALE_MOVE)
    passed = holding.positions(game, game.load(match.state), seat.number, steps)
    state = passed[-1]
    if seat.number not in game.to_act(state):
        raise MoveRejected(NOT_YOUR_TURN)
    if seat.deadline is not None and seat.deadline <= timezone.now():
        raise MoveRejected(TIME_RAN_OUT)  # the deadline sweep applies the timeout
    try:
        new_state = game.apply(state, seat.number, move)
    except IllegalMove as error:
        raise MoveRejected(str(error)) from None
    move = game.normalize(move)
    if held is not None and holding.may_hold(game, seat.number, state, new_state):
        holding.hold(match, seat, [*steps, move], looking=looking)
        return Played(None, match, seats)
    record = _record(match, seats, seat, [*zip(passed[:-1], steps, strict=True), (state, move)])
    match.state = game.dump(new_state)
    match.last_move_at = record.created_at
    after_position_change(match, seats, mover=seat.number, last_move=record.description, looking=looking)
    match.save(update_fields=["state", "version", "last_move_at", "status", "result", "finished_at"])
    return Played(record, match, seats)


def _record(match: Match, seats: list[Seat], seat: Seat, steps: list[tuple[object, str]]) -> MoveRecord:
    """Record the moves of ``seat``, each with the position it was made in (one move, or a turn's
    held steps and the step that ended it), at the match's next plies; the last comes back."""
    game = match.game_obj
    names = seat_names(seats)
    records = []
    for state, move in steps:
        records.append(
            MoveRecord(
                match=match,
                ply=match.version,
                seat=seat.number,
                notation=move,
                # Names at the time of the move: the log keeps saying who made it after a seat changes hands.
                description=in_names(game.describe_parts(state, seat.number, move), names),
                by_ai=seat.is_ai,
            )
        )
        match.version += 1  # safe: the row is locked
    MoveRecord.objects.bulk_create(records)
    return records[-1]


def _same_move_played(match: Match, seat: Seat, move: str, ply: int) -> MoveRecord | None:
    record = MoveRecord.objects.filter(match=match, ply=ply, seat=seat.number).first()  # (match, ply) is unique
    return record if record is not None and record.notation == match.game_obj.normalize(move) else None


def ai_turn_play(*, match_id: int, expected_version: int) -> MoveRecord | None:
    """Compute and submit the AI's move; nothing when the match has moved on meanwhile."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Status.ACTIVE or match.version != expected_version:
        return None
    game = match.game_obj
    state = game.load(match.state)
    ai_seats = {seat.number: seat.ai_level for seat in match.seats.filter(ai_level__isnull=False)}
    acting = [number for number in game.to_act(state) if number in ai_seats]
    if not acting:
        return None
    seat = acting[0]
    # Thinking happens outside any transaction; the result is tied to the version it was computed for.
    move = game.ai_move(state, seat, ai_seats[seat], seed=match.seed ^ expected_version)
    try:
        return move_submit(match_id=match_id, move=move, expected_version=expected_version, ai_seat=seat)
    except StaleMove:
        return None
    except MoveRejected as rejected:
        if rejected.message == NOT_IN_PLAY:  # resigned or aborted meanwhile: that keeps the version
            return None
        raise


def seat_seen(*, match_id: int, user: User | int) -> None:
    """Record that the player (or a user's id) has the match open; at most one row write per PRESENCE_WRITE_SECONDS,
    but at once when others wrote since (the page shows their messages: no longer new on My matches)."""
    now = timezone.now()
    Seat.objects.filter(selectors.presence_due(now, user), match_id=match_id, user=user).update(last_seen_at=now)
