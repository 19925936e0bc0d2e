"""Staff look ratings and their changes up, read-only: they change only with rated matches (and
``recompute_ratings``)."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from games.engine import get_game
from ratings.models import Rating, RatingChange
from ratings.pools import pool_game
from ratings.selectors import display


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def holder(rating: Rating) -> str:
    """The player's name, or the AI level's ("AI (Strong)")."""
    if rating.user_id is None:
        return f"AI ({get_game(pool_game(rating.pool)).ai_levels.get(rating.ai_level, rating.ai_level)})"
    return rating.user.public_name


@admin.register(Rating)
class RatingAdmin(ReadOnly):
    list_display = ("pool", "who", "shown", "rated_matches", "last_played_at", "mu", "sigma")
    list_filter = ("pool",)
    search_fields = ("user__username", "user__display_name")
    list_select_related = ("user",)
    ordering = ("pool", "-value")

    @admin.display(description="player")
    def who(self, rating: Rating) -> str:
        return holder(rating)

    @admin.display(description="rating", ordering="value")
    def shown(self, rating: Rating) -> str:
        return display(rating)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnly):
    list_display = ("at", "who", "pool", "match_link", "seat_number", "value_after")
    list_filter = ("rating__pool",)
    search_fields = ("rating__user__username", "rating__user__display_name")
    list_select_related = ("rating__user",)
    ordering = ("-at", "-pk")

    @admin.display(description="player")
    def who(self, change: RatingChange) -> str:
        return holder(change.rating)

    @admin.display(description="pool", ordering="rating__pool")
    def pool(self, change: RatingChange) -> str:
        return change.rating.pool

    @admin.display(description="match", ordering="match_id")
    def match_link(self, change: RatingChange) -> str:
        return format_html(
            '<a href="{}">#{}</a>', reverse("admin:games_match_change", args=[change.match_id]), change.match_id
        )

    @admin.display(description="seat", ordering="seat")
    def seat_number(self, change: RatingChange) -> int:
        return change.seat + 1
