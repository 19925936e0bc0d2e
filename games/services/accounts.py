"""What closing a player's account does to their matches (``accounts.signals.account_closed``)."""

from __future__ import annotations

from accounts.models import User
from games.models import Match, Seat, Status
from games.services.leaving import match_abort, seat_replace_by_ai


def matches_of_closed_account_settle(*, user: User, actor: User | None) -> None:
    """No match may wait for a player who can no longer sign in: every match still waiting for
    players that they created, joined or were invited to is cancelled, as a declined invitation
    cancels it, and in every match in play the AI takes their seat, whatever the clock (without
    one the match would wait for ever). The others are told why: the cancelled match's email,
    the move log's line about the seat. ``actor``: staff (``None`` from a command), or the player
    closing their own account."""
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
            match_abort(match_id=match.pk, actor=actor, reason=reason, why=cancelled)
        elif match.status == Status.ACTIVE:
            seat_replace_by_ai(
                match_id=match.pk,
                seat_number=seats[match.pk],
                level=max(match.game_obj.ai_levels),
                actor=actor,
                reason=reason,
                why=to_ai,
            )
