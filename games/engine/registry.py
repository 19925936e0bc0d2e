"""Slug -> game object. Games are imported on first use, the way healthchecks maps
integration names to dotted paths, so adding a game is one line here."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.engine.base import Game

GAME_MODULES: dict[str, str] = {
    "mancala": "games.rules.mancala",
    "mecca": "games.rules.mecca",
    "jeexa": "games.rules.jeexa",
    "mesopotamia": "games.rules.mesopotamia",
}


@cache
def get_game(slug: str) -> Game:
    """The game registered under ``slug``; ``KeyError`` for an unknown slug."""
    # The module is only known by name here, so its ``GAME`` is typed on the way out.
    game: Game = import_module(GAME_MODULES[slug]).GAME
    return game


def all_games() -> list[Game]:
    return [get_game(slug) for slug in GAME_MODULES]
