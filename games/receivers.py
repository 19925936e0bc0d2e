"""Games hears what happens to accounts (``accounts.signals``, connected in ``GamesConfig.ready``)."""

from __future__ import annotations

from games.services.accounts import matches_of_closed_account_settle


def account_closed(sender, *, user, actor, **_) -> None:
    matches_of_closed_account_settle(user=user, actor=actor)
