"""Ratings hear how matches end (``games.signals``, connected in ``RatingsConfig.ready``)."""

from __future__ import annotations

from ratings.services import ratings_update


def match_finished(sender, *, match, **_) -> None:
    """In the transaction that finishes the match, with its row locked: the ratings change with it, once."""
    ratings_update(match=match)
