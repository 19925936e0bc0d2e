"""The player's ratings in "Download my data" (``accounts.export``): each pool's rating as their
pages show it, with its history (the match, the rating after it, when). Two queries."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from accounts.models import User
from ratings.models import Rating, RatingChange
from ratings.pools import pool_label


def ratings(user: User) -> Iterator[dict]:
    changes = (
        RatingChange.objects.filter(rating__user=user)
        .order_by("rating_id", "at", "pk")
        .values_list("rating_id", "match_id", "value_after", "at")
    )
    history = {rating: list(rows) for rating, rows in groupby(changes, key=lambda row: row[0])}
    for rating in Rating.objects.filter(user=user).order_by("pool"):
        yield {
            "pool": rating.pool,
            "game": pool_label(rating.pool),
            "value": rating.value,
            "provisional": rating.provisional,
            "rated_matches": rating.rated_matches,
            "last_played_at": rating.last_played_at,
            "history": [
                {"match": match, "value_after": value, "at": at} for _, match, value, at in history.get(rating.pk, [])
            ],
        }
