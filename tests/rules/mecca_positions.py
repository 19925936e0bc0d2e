"""Mecca positions for the rule tests, and moves played and refused as a player sees them.

Positions are drawn as 11 lines of 11 characters, row 1 at the top and column a on the
left: ``.`` is an empty square, ``Y R G B K W`` a yellow, red, green, blue, black or white
pilgrim. The board underneath (mats, entrances, crescents) is the picture of
docs/rules/mecca.md::

      a b c d e f g h i j k
  1   p p p p : 1 : p p p p
  2   p p p . . . . . p p p
  3   p p Y : G : B : R p p
  4   p . : * * * * * : . p
  5   2 . K * # # # * W . 6
  6   : . : * # # # * : . :
  7   3 . W * # # # * K . 5
  8   p . : * * * * * : . p
  9   p p R : B : G : Y p p
 10   p p p . . . . . p p p
 11   p p p p : 4 : p p p p"""

from __future__ import annotations

import pytest

from games.engine import IllegalMove
from games.rules.mecca import GAME
from games.rules.mecca.board import ENTRANCES, LETTERS, SQUARES, square_index, square_name
from games.rules.mecca.rules import COLOURS_IN_PLAY, EMPTY, PILGRIMS, PLACE, State

YELLOW, RED, GREEN, BLUE, BLACK, WHITE = range(6)


def position(
    picture: str,
    *,
    players: int = 4,
    colour: int = RED,
    placed: int = 0,
    step: str = PLACE,
    rnd: int = 3,
    hand: dict[int, int] | None = None,
    final_round: bool = False,
) -> State:
    """A running position from a picture. Every colour in play must stand on its
    entrance; the hands hold what is not on the board unless ``hand`` says otherwise."""
    rows = picture.split()
    assert len(rows) == 11 and all(len(row) == 11 for row in rows), "11 rows of 11 squares"
    board = tuple(EMPTY if mark == "." else LETTERS.index(mark) for row in rows for mark in row)
    colours = COLOURS_IN_PLAY[players]
    entrances = tuple(next(sq for sq in ENTRANCES if board[sq] == c) for c in range(colours))
    counts = [board.count(c) for c in range(colours)]
    hands = tuple((hand or {}).get(c, PILGRIMS - counts[c]) for c in range(colours))
    return State(players, 0, board, hands, entrances, step, colour, placed, rnd, final_round, None, (), "", 0)


def sq(name: str) -> int:
    return square_index(name)


def seat_of(state: State) -> int:
    return GAME.to_act(state)[0]


def play(state: State, *moves: str) -> State:
    for move in moves:
        state = GAME.apply(state, seat_of(state), move)
    return state


def refused(state: State, move: str) -> str:
    """The message a player reads when ``move`` is refused."""
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, seat_of(state), move)
    return str(error.value)


def setup_done(players: int, entrances: list[str]) -> State:
    return play(GAME.initial_state(players, {}, seed=1), *entrances)


# The text's worked example (4 players): red is about to play its three pilgrims.
# Entrances: yellow f1, red a5, green a7, blue k7; e5:g7 is the Kaaba.
WORKED_EXAMPLE = """
    .....Y.....
    ...........
    .......B...
    ......Y....
    R......G.G.
    ........B..
    G.........B
    .....G.....
    ....Y.B....
    ...........
    ...........
"""
# The same, but the green pilgrim on j5 holds hands with a yellow pilgrim on j4.
COUNTER_EXAMPLE = """
    .....Y.....
    ...........
    .......B...
    ......Y..Y.
    R......G.G.
    ........B..
    G.........B
    .....G.....
    ....Y.B....
    ...........
    ...........
"""


def _one_round(state: State) -> list[str]:
    moves = []
    for _ in range(state.colours):
        move = GAME.legal_moves(state, seat_of(state))[0]
        moves.append(move)
        state = GAME.apply(state, seat_of(state), move)
    return moves


def _rows(pilgrims: dict[str, str], keep: tuple[str, ...], colours: int) -> str:
    """A picture from ``square: letter``; entrance pilgrims outside ``keep`` are dropped."""
    board = ["."] * SQUARES
    for name, letter in pilgrims.items():
        if name in {square_name(e) for e in ENTRANCES} and name not in keep:
            continue
        if LETTERS.index(letter) < colours:
            board[sq(name)] = letter
    return "\n".join("".join(board[r * 11 : r * 11 + 11]) for r in range(11))
