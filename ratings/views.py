"""The leaderboards, open to anyone: one per pool, and the list of them."""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from games.views import not_found
from ratings import selectors
from ratings import statistics as pool_statistics
from ratings.pools import all_pools, pool_game, pool_label, pools_of

NO_SUCH_LEADERBOARD = "There is no leaderboard at this address."
NO_SUCH_STATISTICS = "There are no statistics at this address."


@require_safe
def leaderboards(request):
    """Every pool's leaderboard, by game and Mancala variant."""
    pools = [{"pool": pool, "label": pool_label(pool)} for pool in all_pools()]
    return render(request, "ratings/leaderboards.html", {"pools": pools})


@require_safe
def leaderboard(request, pool: str):
    """A page of the pool's active players by rating, the viewer's own row where it is elsewhere,
    and the AI levels' ratings to measure oneself against."""
    if pool not in all_pools():
        variants = pools_of(pool)
        if variants:  # "mancala": a game rated by variant, whose first variant's is shown
            return redirect("leaderboard", variants[0])
        return not_found(request, NO_SUCH_LEADERBOARD)
    board = selectors.leaderboard(pool, request.GET.get("page"), request.user)
    context = {
        "pool": pool,
        "label": pool_label(pool),
        "game_slug": pool_game(pool),
        "variants": [(other, pool_label(other)) for other in pools_of(pool_game(pool)) if other != pool],
        "board": board,
        "ai_levels": selectors.ai_level_rows(pool),
        "active_days": selectors.active_days(),
    }
    return render(request, "ratings/leaderboard.html", context)


@require_safe
def statistics(request, pool: str):
    """The pool's figures over its finished matches, as the nightly run stored them: one query."""
    if pool not in all_pools():
        variants = pools_of(pool)
        if variants:  # "mancala": a game counted by variant, whose first variant's are shown
            return redirect("pool_statistics", variants[0])
        return not_found(request, NO_SUCH_STATISTICS)
    context = {
        "pool": pool,
        "label": pool_label(pool),
        "game_slug": pool_game(pool),
        "variants": [(other, pool_label(other)) for other in pools_of(pool_game(pool)) if other != pool],
        "statistics": pool_statistics.statistics_page(pool_statistics.stored(pool)),
    }
    return render(request, "ratings/statistics.html", context)
