"""Pools: the sets of matches a rating counts. One per game, and for Mancala one per variant
(Kalah and Nigerian are different games): "mancala/egyptian", …, "mecca", "jeexa", "mesopotamia"."""

from __future__ import annotations

from games.boards import options_label
from games.engine import all_games, get_game

# The option whose values are games of their own, per game that has one.
SPLIT_BY = {"mancala": "variant"}


def pool_of(game: str, options: dict) -> str:
    """A match's pool, from its game and (resolved, as stored) options."""
    option = SPLIT_BY.get(game)
    if option is None:
        return game
    return f"{game}/{options.get(option) or get_game(game).options[option][0]}"


def all_pools() -> list[str]:
    """Every pool, in the order of the games and their options."""
    pools = []
    for game in all_games():
        option = SPLIT_BY.get(game.slug)
        pools += [game.slug] if option is None else [f"{game.slug}/{value}" for value in game.options[option]]
    return pools


def pool_label(pool: str) -> str:
    """ "Mancala (Kalah)", "Mecca"."""
    game, _, value = pool.partition("/")
    name = get_game(game).name
    return f"{name} ({options_label(game, {SPLIT_BY[game]: value})})" if value else name


def pool_game(pool: str) -> str:
    """The game's slug: its AI levels, its pages."""
    return pool.partition("/")[0]


def pools_of(game: str) -> list[str]:
    """A game's pools where it has several (Mancala's variants); none otherwise."""
    return [pool for pool in all_pools() if pool.startswith(f"{game}/")]
