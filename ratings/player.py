"""The ratings part of a player's page (``games.hooks.player_page_parts``)."""

from __future__ import annotations

from ratings.selectors import player_ratings


def player_page_ratings(request, player) -> dict:
    return {"player_ratings": player_ratings(player)}
