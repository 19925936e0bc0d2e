"""Reads of ratings for the pages: the number as players read it, a player's ratings and their
history, the AI levels' ratings, the leaderboards. Each a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games.engine import get_game
from ratings.models import Rating, RatingChange, displayed_value
from ratings.pools import all_pools, pool_game, pool_label


def display(rating: Rating) -> str:
    """ "1523", or "1210?" while the rating is provisional (too few rated matches yet)."""
    return f"{rating.value}?" if rating.provisional else str(rating.value)


def ratings_of(user: User) -> dict[str, Rating]:
    """The player's rating in each pool they played a rated match in, by pool; one query."""
    return {rating.pool: rating for rating in Rating.objects.filter(user=user).order_by("pool")}


def history(user: User, pool: str) -> list[RatingChange]:
    """The player's rating changes in ``pool``, oldest first (the history chart); one query."""
    return list(RatingChange.objects.filter(rating__user=user, rating__pool=pool).order_by("at", "pk"))


def ai_ratings(pool: str) -> dict[int, Rating]:
    """Each AI level's rating in ``pool``, by level, of the levels that played a rated match there; one query."""
    return {rating.ai_level: rating for rating in Rating.objects.filter(pool=pool, user=None).order_by("ai_level")}


# --- leaderboards ------------------------------------------------------------------------------

LEADERBOARD_PAGE = 50  # rows per page


def active_days() -> int:
    return settings.RATING_ACTIVE_DAYS


def active_since() -> datetime:
    """Leaderboards list the players who finished a rated match in the pool since then."""
    return timezone.now() - timedelta(days=active_days())


@dataclass(frozen=True)
class AiLevelRow:
    name: str  # "AI (Strong)"
    rating: Rating
    shown: str


def ai_level_rows(pool: str) -> list[AiLevelRow]:
    """The AI levels' ratings in the pool, strongest first (one query), beside its leaderboard."""
    levels = get_game(pool_game(pool)).ai_levels
    rows = [
        AiLevelRow(f"AI ({levels.get(level, level)})", rating, display(rating))
        for level, rating in ai_ratings(pool).items()
    ]
    return sorted(rows, key=lambda row: -row.rating.value)


def leaderboard_rows(pool: str) -> QuerySet[Rating]:
    """The pool's active players (open accounts) by rating, highest first; read in the order of the
    ``rating_leaderboard`` index, a page at a time."""
    return (
        Rating.objects.filter(pool=pool, user__isnull=False, user__is_active=True, last_played_at__gte=active_since())
        .select_related("user")
        .order_by("-value", "pk")
    )


@dataclass(frozen=True)
class Leaderboard:
    page: Page  # of Rating, each with ``rank``
    mine: Rating | None  # the viewer's row (with ``rank``) where it is listed but not on this page
    inactive: Rating | None  # the viewer's rating where it is too old to be listed


def leaderboard(pool: str, page_number: str | None, viewer: User | AnonymousUser) -> Leaderboard:
    """A page of the pool's leaderboard, each row with its ``rank`` (1 is the highest rating), and
    the viewer's own row where it is on another page. Four queries at most, whatever the players:
    the count, the page, the viewer's rating and the count of those above it."""
    rows = leaderboard_rows(pool)
    page = Paginator(rows, LEADERBOARD_PAGE).get_page(page_number)
    for rank, rating in enumerate(page.object_list, start=page.start_index()):
        rating.rank = rank
    if not viewer.is_authenticated or any(rating.user_id == viewer.pk for rating in page.object_list):
        return Leaderboard(page, None, None)
    mine = Rating.objects.filter(pool=pool, user=viewer).select_related("user").first()
    if mine is None:
        return Leaderboard(page, None, None)
    if not viewer.is_active or mine.last_played_at is None or mine.last_played_at < active_since():
        return Leaderboard(page, None, mine)
    mine.rank = 1 + rows.filter(Q(value__gt=mine.value) | Q(value=mine.value, pk__lt=mine.pk)).count()
    return Leaderboard(page, mine, None)


# --- a player's page -----------------------------------------------------------------------------

CHART_WIDTH, CHART_HEIGHT = 600, 160  # the history chart's drawing units (it scales to its box)
CHART_PAD = 6  # room for the line's width at the edges


@dataclass(frozen=True)
class Chart:
    """A rating's history as an SVG polyline, drawn on the server: one point per rated match."""

    points: str  # "x,y x,y …" in a CHART_WIDTH × CHART_HEIGHT box
    lowest: int
    highest: int
    first_at: datetime
    last_at: datetime
    matches: int
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT


def chart(start: int, values: list[tuple[int, datetime]]) -> Chart | None:
    """The chart of the numbers (value after, when) in order, from ``start``, the number before the
    first; ``None`` without a change."""
    if not values:
        return None
    numbers = [start] + [value for value, _ in values]
    lowest, highest = min(numbers), max(numbers)
    span = max(highest - lowest, 1)
    step = (CHART_WIDTH - 2 * CHART_PAD) / (len(numbers) - 1)
    inner = CHART_HEIGHT - 2 * CHART_PAD
    points = " ".join(
        f"{CHART_PAD + index * step:.1f},{CHART_PAD + inner * (highest - number) / span:.1f}"
        for index, number in enumerate(numbers)
    )
    return Chart(points, lowest, highest, values[0][1], values[-1][1], len(values))


@dataclass(frozen=True)
class PoolRating:
    pool: str
    label: str
    rating: Rating
    shown: str  # "1523", "1210?"
    chart: Chart | None


def player_ratings(player: User) -> list[PoolRating]:
    """The player's rating in each pool they played a rated match in, in the order of the games,
    each with its history chart. Two queries, whatever the matches: the ratings, and their changes'
    numbers and times (read from the ``rating_change_history`` index)."""
    ratings = ratings_of(player)
    if not ratings:
        return []
    by_id = {rating.pk: pool for pool, rating in ratings.items()}
    values: dict[str, list[tuple[int, datetime]]] = {pool: [] for pool in ratings}
    start: dict[str, int] = {}
    changes = RatingChange.objects.filter(rating_id__in=by_id).order_by("rating_id", "at", "pk")
    for rating_id, value, at, mu_before, sigma_before in changes.values_list(
        "rating_id", "value_after", "at", "mu_before", "sigma_before"
    ):
        pool = by_id[rating_id]
        start.setdefault(pool, displayed_value(mu_before, sigma_before))
        values[pool].append((value, at))
    return [
        PoolRating(
            pool, pool_label(pool), ratings[pool], display(ratings[pool]), chart(start.get(pool, 0), values[pool])
        )
        for pool in all_pools()
        if pool in ratings
    ]
