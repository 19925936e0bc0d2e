"""A match waiting for players: joining an open seat, answering an invitation, the creator
withdrawing it, and its expiry when nobody comes."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import signals
from games.models import Match, Seat, Status
from games.naming import names_in_words
from games.services.base import lock_match, record_event, seat_of, seats_locked, set_status, tell_of_cancelling
from games.services.errors import AlreadyDone, NotAllowed, ServiceError
from games.services.turns import start_if_full

NOT_OPEN = "This match is no longer waiting for players."


SEAT_TAKEN = "Another player took the last seat just before you."


ALREADY_SEATED = "You already have a seat in this match."


ALREADY_ACCEPTED = "You have already accepted this invitation."


NOT_OPEN_ANY_MORE = {  # why a match no longer takes joins, acceptances or withdrawals
    Status.ACTIVE: "This match has already started.",
    Status.ABORTED: "This match was cancelled.",
    Status.FINISHED: "This match is over.",
}


ACCEPT_INSTEAD = "You are invited to this match: accept the invitation to take your seat."


YOUR_OWN_MATCH = "You created this match, so there is no invitation for you to answer."


NO_OPEN_SEAT = "There is no open seat left in this match."


NO_INVITATION = "You have no invitation to this match."


ONLY_CREATOR_CANCELS = "Only the player who created this match can cancel it."


WAITS_FOR_CLOSED_ACCOUNT = "This match waits for {names}, whose account{s} {are} closed, so it can never start."


@transaction.atomic
def match_join(*, match_id: int, user: User) -> Match:
    match = lock_match(match_id)
    seats = seats_locked(match)
    if match.status != Status.OPEN:
        raise _no_longer_open(match, seats, user, joining=True)
    if mine := seat_of(seats, user):
        raise AlreadyDone(ALREADY_SEATED) if mine.accepted else ServiceError(ACCEPT_INSTEAD)
    if why := waits_for_closed_account(seats):
        raise ServiceError(why)
    seat = next((seat for seat in seats if seat.is_open), None)
    if seat is None:
        raise ServiceError(NO_OPEN_SEAT)
    seat.user = user
    seat.save(update_fields=["user"])
    record_event(match, reason=f"{user.public_name} took seat {seat.number + 1}.", actor=user)
    start_if_full(match, seats, actor=user)
    return match


@transaction.atomic
def match_accept(*, match_id: int, user: User) -> Match:
    match, seats, seat = _invitation_to_answer(match_id, user, accepting=True)
    if why := waits_for_closed_account(seats):
        raise ServiceError(why)
    seat.accepted = True
    seat.save(update_fields=["accepted"])
    record_event(match, reason=f"{user.public_name} accepted the invitation.", actor=user)
    start_if_full(match, seats, actor=user)
    return match


@transaction.atomic
def match_decline(*, match_id: int, user: User) -> Match:
    match, seats, _seat = _invitation_to_answer(match_id, user, accepting=False)
    _cancel_open(match, seats, f"{user.public_name} declined the invitation, so the match is cancelled.", actor=user)
    return match


@transaction.atomic
def match_cancel(*, match_id: int, user: User) -> Match:
    """The creator withdraws a match nobody has started playing."""
    match = lock_match(match_id)
    if match.status != Status.OPEN:
        raise ServiceError(NOT_OPEN_ANY_MORE.get(match.status, NOT_OPEN))
    if match.created_by_id != user.pk:
        raise NotAllowed(ONLY_CREATOR_CANCELS)
    # Those invited and those who joined hear of it.
    _cancel_open(match, seats_locked(match), f"{user.public_name} withdrew the match before it started.", actor=user)
    return match


@transaction.atomic
def match_expire(*, match_id: int) -> bool:
    """Cancel a match still waiting for players at its ``open_until``, telling everyone seated
    or invited why. The match row is locked and re-checked, so a join or an acceptance that got
    in first wins (and gave it more time), and two sweeps at once cancel it once."""
    match = lock_match(match_id)
    if match.status != Status.OPEN or match.open_until is None or match.open_until > timezone.now():
        return False
    seats = seats_locked(match)
    _cancel_open(match, seats, _expiry_words(seats), actor=None)
    return True


@transaction.atomic
def invitation_expiry_tell(*, match_id: int) -> int:
    """``OPEN_MATCH_WARN_DAYS`` before an open match runs out: tell the invited players who have
    not answered yet, once (``open_until_told``, set under the row lock). How many were told."""
    now = timezone.now()
    match = lock_match(match_id)
    if (
        match.status != Status.OPEN
        or match.open_until_told
        or match.open_until is None
        or not now < match.open_until <= now + timedelta(days=settings.OPEN_MATCH_WARN_DAYS)
    ):
        return 0
    match.open_until_told = True
    match.save(update_fields=["open_until_told"])
    silent = [seat.user for seat in seats_locked(match) if seat.user_id and not seat.accepted and seat.user.is_active]
    for user in silent:
        signals.invitation_expiring.send(Match, match=match, user=user)
    return len(silent)


def waits_for_closed_account(seats: list[Seat]) -> str:
    """Why a match still open can never start, or "": a seat held or offered to a player whose
    account is closed (before closing an account cancelled such matches; see
    ``accounts.services.user_deactivate``). Nobody may join it or accept; declining ends it."""
    closed = [seat.user.public_name for seat in seats if seat.user_id and not seat.user.is_active]
    if not closed:
        return ""
    several = len(closed) > 1
    return WAITS_FOR_CLOSED_ACCOUNT.format(
        names=names_in_words(closed), s="s" if several else "", are="are" if several else "is"
    )


def _no_longer_open(
    match: Match, seats: list[Seat], user: User, *, joining: bool = False, accepting: bool = False
) -> ServiceError:
    """Why a match that was open a moment ago takes no join, acceptance or withdrawal now,
    in the words of what happened (a race lost, a second tab, a creator who withdrew)."""
    seat = seat_of(seats, user)
    if match.status == Status.ACTIVE and seat is None:
        return ServiceError(SEAT_TAKEN)
    if match.status == Status.ACTIVE and seat.accepted and (joining or seat.user_id != match.created_by_id):
        # "Join" pressed twice took a seat, it accepted no invitation.
        error = AlreadyDone if joining or accepting else ServiceError  # a Decline is refused
        return error(f"{ALREADY_SEATED if joining else ALREADY_ACCEPTED} {NOT_OPEN_ANY_MORE[Status.ACTIVE]}")
    if match.status == Status.ABORTED:  # say why: "Bob declined the invitation, so the match is cancelled."
        ended = match.events.filter(to_status=Status.ABORTED).exclude(from_status=Status.ABORTED).last()
        if ended is not None:
            return ServiceError(ended.reason)
    return ServiceError(NOT_OPEN_ANY_MORE.get(match.status, NOT_OPEN))


def _already_answered(match: Match, user: User, *, accepting: bool) -> ServiceError:
    """Accept or Decline pressed by someone whose seat is taken already: its creator, or an
    invited player who said yes before (to whom a second Accept is no error)."""
    if match.created_by_id == user.pk:
        return ServiceError(YOUR_OWN_MATCH)
    return AlreadyDone(ALREADY_ACCEPTED) if accepting else ServiceError(ALREADY_ACCEPTED)


def _invitation_to_answer(match_id: int, user: User, *, accepting: bool) -> tuple[Match, list[Seat], Seat]:
    """The locked match, its seats and the user's seat, for Accept or Decline: refused
    when the match is no longer open or the user has no invitation still to answer."""
    match = lock_match(match_id)
    seats = seats_locked(match)
    if match.status != Status.OPEN:
        raise _no_longer_open(match, seats, user, accepting=accepting)
    seat = seat_of(seats, user)
    if seat is None:
        raise NotAllowed(NO_INVITATION)
    if seat.accepted:
        raise _already_answered(match, user, accepting=accepting)
    return match, seats, seat


def _cancel_open(match: Match, seats: list[Seat], why: str, *, actor: User | None) -> None:
    """End a match still waiting for players (declined, withdrawn, expired): everyone seated
    or invited but ``actor`` hears ``why``. The match row is locked by the caller."""
    set_status(match, Status.ABORTED, reason=why, actor=actor, in_log=True)
    match.finished_at = timezone.now()  # finished matches are listed by when they ended
    match.save(update_fields=["status", "finished_at"])
    tell_of_cancelling(match, seats, why, but=actor)


def _expiry_words(seats: list[Seat]) -> str:
    """ "Bob did not answer the invitation in 14 days, so the match is cancelled." """
    silent = [seat.user.public_name for seat in seats if seat.user_id and not seat.accepted]
    free = sum(seat.is_open for seat in seats)
    parts = []
    if silent:
        parts.append(
            f"{names_in_words(silent)} did not answer {'the invitation' if len(silent) == 1 else 'their invitations'}"
        )
    if free:
        parts.append("nobody took the open seat" if free == 1 else f"nobody took the {free} open seats")
    what = " and ".join(parts) or "nobody took the match up"  # not reached: an open match waits for someone
    return f"{what[:1].upper()}{what[1:]} in {settings.OPEN_MATCH_EXPIRY_DAYS} days, so the match is cancelled."
