"""Writes to an account that reach into other players' matches."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.db import transaction

from accounts import signals
from accounts.models import User


@transaction.atomic
def user_deactivate(*, user_id: int, actor: User | None) -> User:
    """Close a player's account (no sign-in, no more messages) so that no match waits for them:
    games settles their matches in the same transaction (``accounts.signals.account_closed``).
    ``actor``: staff (``None`` from a command), or the player closing their own account."""
    user = User.objects.select_for_update().get(pk=user_id)
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    signals.account_closed.send(User, user=user, actor=actor)
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
