"""Ratings: one per player (or AI level) per pool, a game or, for Mancala, one of its variants
(``ratings.pools``), and the change each rated match made to it.

A rating is openskill's Weng-Lin estimate of skill, ``mu`` with its uncertainty ``sigma``;
players read one number, ``displayed_value``, kept in ``value`` for the leaderboard's order.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Match


def displayed_value(mu: float, sigma: float) -> int:
    """The one number players read: openskill's ordinal (mu − 3σ, a skill the player very likely
    has at least) scaled so that a newcomer (mu 25, σ 25/3: ordinal 0) starts at 1200 and an
    established average player (mu 25, σ near 3.3: ordinal near 15) sits near 1500; 20 points are
    one unit of mu. The only place the scale is written (docs/players.md, "Ratings", says it)."""
    return round(1200 + 20 * (mu - 3 * sigma))


class Rating(models.Model):
    """A player's rating in a pool, or an AI level's (each level has its own, updated like a player's)."""

    pool = models.CharField(max_length=40)  # "mancala/kalah", "mecca": ratings.pools
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="ratings"
    )
    ai_level = models.PositiveSmallIntegerField(null=True, blank=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    rated_matches = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)
    # displayed_value(mu, sigma), stored so that a leaderboard is read in its order from an index.
    value = models.IntegerField()

    class Meta:
        constraints = [
            # User first: a player's ratings (ratings_of) are read from this constraint's index.
            models.UniqueConstraint(fields=["user", "pool"], name="rating_unique_user_pool"),
            models.UniqueConstraint(fields=["pool", "ai_level"], name="rating_unique_ai_level_pool"),
            models.CheckConstraint(
                condition=Q(user__isnull=False, ai_level__isnull=True) | Q(user__isnull=True, ai_level__isnull=False),
                name="rating_user_or_ai_level",
            ),
        ]
        indexes = [
            # A leaderboard: the players of a pool by rating, those active lately found in the index itself.
            models.Index(
                fields=["pool", "-value", "last_played_at"], condition=Q(user__isnull=False), name="rating_leaderboard"
            ),
            # How many players of a pool played lately (the leaderboard's pages), without reading the others.
            models.Index(fields=["pool", "last_played_at"], condition=Q(user__isnull=False), name="rating_active"),
        ]

    def __str__(self) -> str:
        who = f"AI level {self.ai_level}" if self.user_id is None else f"player #{self.user_id}"
        return f"{who} in {self.pool}: {self.value}"

    @property
    def provisional(self) -> bool:
        """Too few rated matches yet for the number to say much: shown with "?"."""
        return self.rated_matches < settings.RATING_PROVISIONAL_MATCHES


class RatingChange(models.Model):
    """What one rated match did to one rating (an AI level on several seats: once, its seats' average)."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    seat = models.PositiveSmallIntegerField()  # the seat's number (an AI on several: its first)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    value_after = models.IntegerField()
    at = models.DateTimeField()  # when the match finished

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "rating"], name="rating_change_once_per_match")]
        indexes = [models.Index(fields=["rating", "at"], name="rating_change_history")]

    def __str__(self) -> str:
        return f"{self.rating.pool} after match #{self.match_id}: {self.value_after}"


class PoolStatistics(models.Model):
    """A pool's figures over its finished matches (``ratings.statistics``), computed nightly by beat
    so that the statistics page reads one row whatever the matches."""

    pool = models.CharField(max_length=40, unique=True)
    computed_at = models.DateTimeField()
    # ratings.statistics.compute's dict: the matches, per player count and per AI level.
    figures = models.JSONField()

    class Meta:
        verbose_name_plural = "pool statistics"

    def __str__(self) -> str:
        return f"Statistics of {self.pool} at {self.computed_at:%Y-%m-%d %H:%M}"
