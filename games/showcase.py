"""What the home page shows of each game: a picture of its board in a real position, drawn by
the same template as a match page, and a line that says what the game is.

The position comes from the rules alone (a seeded start and a few seeded legal moves), so a
picture is computed once per process and costs a visitor no query."""

from __future__ import annotations

import random
from functools import cache
from typing import NamedTuple

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games.boards import board_context
from games.engine import get_game

# A short line per game for its card; the game's page and rules say more.
PITCHES = {
    "mancala": "Sow coins round two rows of tiles and capture your opponent's.",
    "mecca": "Lead your pilgrims into the courtyard, where strict rules say who may stand by whom.",
    "jeexa": "Roll the die, fit the piece into your puzzle, and steal from the others.",
    "mesopotamia": "Explore a growing map, build huts and holy places, carry offerings to the temple.",
}


class Position(NamedTuple):
    players: int
    moves: int  # legal moves played from the start: enough for a board with something on it


# Chosen by looking at the pictures: a handful of moves, the game still young.
POSITIONS = {
    "mancala": Position(players=2, moves=6),
    "mecca": Position(players=3, moves=14),
    "jeexa": Position(players=3, moves=24),
    "mesopotamia": Position(players=2, moves=30),
}
SEED = 40


def sample_state(slug: str):
    """A position a few seeded legal moves from a seeded start (the same in every process)."""
    game = get_game(slug)
    position = POSITIONS.get(slug, Position(players=game.min_players, moves=6))
    state = game.initial_state(position.players, None, SEED)
    chooser = random.Random(SEED)
    for _ in range(position.moves):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)))
    return state


@cache
def board_picture(slug: str) -> SafeString:
    """The board of ``sample_state`` as a spectator sees it, as an image: no form, no control."""
    game = get_game(slug)
    view = game.view(sample_state(slug), None)
    context = {"view": view, "board": board_context(slug, view, None, [], None), "picture": True}
    return SafeString(render_to_string(f"games/boards/{slug}.html", context))
