"""Writes to an account that reach into other players' matches."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.db import transaction

from accounts.models import User
from games import services
from games.models import Match, Seat, Status


@transaction.atomic
def user_deactivate(*, user_id: int, actor: User | None) -> User:
    """Close a player's account (no sign-in, no more messages) so that no match waits for them:
    every match still waiting for players that they created, joined or were invited to is
    cancelled, as a declined invitation cancels it, and in every match in play the AI takes
    their seat, whatever the clock (without one the match would wait for ever). The others
    are told why: the cancelled match's email, the move log's line about the seat. ``actor``:
    staff (``None`` from a command), or the player closing their own account."""
    user = User.objects.select_for_update().get(pk=user_id)
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    reason = f"{user.public_name}'s account was closed"
    cancelled = to_ai = ""  # staff's words: "Staff aborted the match: Alice's account was closed."
    if actor is not None and actor.pk == user.pk:  # no staff did anything: the players read who did
        cancelled = f"{user.public_name} closed their account, so the match is cancelled."
        to_ai = f"{user.public_name} closed their account; the AI plays on."
    # A player's seat number never changes; the match's status may, so it is read under the lock.
    seats = dict(
        Seat.objects.filter(user=user, match__status__in=[Status.OPEN, Status.ACTIVE]).values_list("match_id", "number")
    )
    # Locked first, in one order: no join, move or staff action changes them between the look and the change.
    for match in Match.objects.select_for_update().filter(pk__in=seats).order_by("pk"):
        if match.status == Status.OPEN:
            services.match_abort(match_id=match.pk, actor=actor, reason=reason, why=cancelled)
        elif match.status == Status.ACTIVE:
            services.seat_replace_by_ai(
                match_id=match.pk,
                seat_number=seats[match.pk],
                level=max(match.game_obj.ai_levels),
                actor=actor,
                reason=reason,
                why=to_ai,
            )
    return user


@transaction.atomic
def user_close_own(*, user: User) -> User:
    """The player closes their own account: as ``user_deactivate``, with them as the actor, and
    the site forgets their email address (allauth's addresses and ``User.email``), so it is free
    for a new account, as a new player. Staff closing an account keep it: that may be a ban,
    and the address must not open a new account then."""
    closed = user_deactivate(user_id=user.pk, actor=user)
    EmailAddress.objects.filter(user=closed).delete()  # their confirmation keys go with them
    closed.email = ""
    closed.save(update_fields=["email"])
    return closed
