"""The contract every game implements (see the project's engine spec).

Nothing in this package, nor in ``games.rules``, imports Django: the rules are plain
Python, plain data in and plain data out, so they can be tested, benchmarked and run
by AI workers without a database.
"""

from __future__ import annotations

from games.engine.base import Game, IllegalMove, Outcome
from games.engine.registry import all_games, get_game

__all__ = ["Game", "IllegalMove", "Outcome", "all_games", "get_game"]
