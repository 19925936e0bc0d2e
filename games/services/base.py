"""What every service of a match does: lock it, change its status, record why, and tell the
others (through ``games.signals``) and the AI (through a task, after the commit)."""

from __future__ import annotations

from functools import partial

from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from accounts.models import User
from games import selectors, signals, tasks
from games.models import STATUS_TRANSITIONS, Match, MatchEvent, Seat, Status
from games.services.errors import ServiceError

LOCK_TIMEOUT = "5s"
STATEMENT_TIMEOUT = "15s"


def _time_limits() -> RawSQL:
    # SET LOCAL is set_config(..., true): both limits in one expression.
    return RawSQL(
        "set_config('lock_timeout', %s, true) || set_config('statement_timeout', %s, true)",
        [LOCK_TIMEOUT, STATEMENT_TIMEOUT],
    )


def limit_waits() -> None:
    """A lock held too long, or a statement that hangs, fails the transaction rather than the request hanging."""
    if connection.vendor == "postgresql":
        limits = _time_limits()
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {limits.sql}", limits.params)


def lock_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends: the one serialisation point of moves."""
    limit_waits()
    return Match.objects.select_for_update().get(pk=match_id)


def seats_locked(match: Match) -> list[Seat]:
    return list(match.seats.select_related("user", "former_user").order_by("number"))


def lock_match_with_seats(match_id: int) -> tuple[Match, list[Seat]]:
    """``lock_match`` and ``seats_locked`` in one query: the seats with their match joined, only
    the match row locked. The match keeps its seats (``match.seats.all()`` reads no more)."""
    seats = Seat.objects.select_related("match", "user", "former_user").select_for_update(of=("match",))
    if connection.vendor == "postgresql":
        # ``limit_waits`` in the same query: PostgreSQL computes each row (setting the limits)
        # before its LockRows step waits for the lock (tests/games/test_race.py holds it to that).
        seats = seats.annotate(time_limits_set=_time_limits())
    seats = list(seats.filter(match_id=match_id).order_by("number"))
    if not seats:  # every match has its seats from the start
        raise Match.DoesNotExist(f"No match {match_id}.")
    match = seats[0].match
    selectors.keep_seats(match, seats)
    return match, seats


def seat_of(seats: list[Seat], user: User) -> Seat | None:
    return next((seat for seat in seats if seat.user_id == user.pk), None)


def set_status(match: Match, to: str, *, reason: str, actor: User | None = None, in_log: bool = False) -> None:
    if to not in STATUS_TRANSITIONS[match.status]:
        raise ServiceError(f"A match that is {match.get_status_display().lower()} cannot become {to}.")
    MatchEvent.objects.create(
        match=match,
        from_status=match.status,
        to_status=to,
        reason=reason,
        actor=actor,
        ply=match.version if in_log else None,
    )
    match.status = to
    touch(match)
    if to == Status.FINISHED:  # with its result: played out, resigned or timed out, once
        signals.match_finished.send(Match, match=match)


def record_event(
    match: Match,
    *,
    reason: str,
    actor: User | None = None,
    in_log: bool = False,
    level_change: tuple[int, int] | None = None,
) -> None:
    """A seating or clock change that keeps the status, kept beside the status changes;
    ``level_change`` is the seat whose AI level staff changed and its former level."""
    seat, former_ai_level = level_change or (None, None)
    MatchEvent.objects.create(
        match=match,
        from_status=match.status,
        to_status=match.status,
        reason=reason,
        actor=actor,
        ply=match.version if in_log else None,
        seat=seat,
        former_ai_level=former_ai_level,
    )
    touch(match)


def touch(match: Match) -> None:
    """A change open pages should redraw that is not a move (the row is locked by the caller)."""
    match.revision += 1
    Match.objects.filter(pk=match.pk).update(revision=match.revision)


def readers(seats: list[Seat], *, but: int | None = None) -> list[tuple[Seat, User]]:
    """Who hears how a match ended (or that it was cancelled), with their seat: every person
    seated or invited, and those whose seat the AI took over while it was in play (they took
    part; a closed account hears nothing). ``but``: a person who knows already (their own
    move or action ended it)."""
    heard = []
    for seat in seats:
        if seat.user_id is not None:
            person = seat.user
        elif seat.taken_over_at is not None and seat.former_user is not None and seat.former_user.is_active:
            person = seat.former_user
        else:
            continue
        if person.pk != but:
            heard.append((seat, person))
    return heard


def because(reason: str) -> str:
    """Staff's reason as the end of a sentence: ": Cheating reported." (or just "." without one);
    one that ends its sentence itself ("Cheating, again!") gets no second mark."""
    reason = reason.strip().rstrip(".")
    if reason.endswith(("!", "?", "…")):
        return f": {reason}"
    return f": {reason}." if reason else "."


def ai_to_move(match: Match, seats: list[Seat]) -> None:
    """After the commit, the AI seat to act thinks in a worker (the AI sweep catches a lost task);
    in a match against the AI alone (one person, or none left), behind the AI moves of matches
    where several people wait."""
    people = sum(seat.user_id is not None for seat in seats)
    enqueue = tasks.enqueue_ai_move if people > 1 else tasks.enqueue_ai_move_alone
    transaction.on_commit(partial(enqueue, match.pk, match.version), robust=True)


def tell_the_result(match: Match, seats: list[Seat], told: list[tuple[Seat, User]], *, last_move: str = "") -> None:
    for seat, user in told:
        signals.match_ended.send(Match, match=match, seats=seats, seat=seat, user=user, last_move=last_move)


def tell_of_cancelling(match: Match, seats: list[Seat], why: str, *, but: User | None = None) -> None:
    """Every person seated (invited or not), and whoever's seat the AI took in play, except
    ``but``, hears that the match was cancelled, and why."""
    for seat, user in readers(seats, but=getattr(but, "pk", None)):
        signals.match_cancelled.send(Match, match=match, seat=seat, user=user, why=why)
