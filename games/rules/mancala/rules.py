"""The board, the state and one turn of sowing, as plain functions.

The board is handled as one flat ring of 14 holes in counterclockwise order::

    0..5   tiles[0][0..5]      6   mancala[0]
    7..12  tiles[1][0..5]      13  mancala[1]

so sowing to the right is ``+1`` and to the left ``-1`` (mod 14), and the tile across
from hole ``h`` is ``12 - h``. The AI searches on this ring directly; ``State`` keeps
the spec's per-owner tuples for everything that leaves the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

EGYPTIAN, ETHIOPIAN, NIGERIAN, KALAH = "egyptian", "ethiopian", "nigerian", "kalah"
VARIANTS = (EGYPTIAN, ETHIOPIAN, NIGERIAN, KALAH)
SWEEPING = frozenset({EGYPTIAN, ETHIOPIAN, KALAH})

TILES = 6
START_COINS = 4
HOLES = 14
STORE = (6, 13)
RIGHT, LEFT = 1, -1
NIGERIAN_BANK = 4  # a tile that reaches this many coins is banked by its owner
# Ethiopian: moves in a row that bank no coin after which the game ends (a sowing to the left
# can send the same coins round for ever). 2,000 random games never went past 16.
STALL_LIMIT = 50

Board = tuple[int, ...]


@dataclass(frozen=True)
class State:
    variant: str
    tiles: tuple[tuple[int, ...], tuple[int, ...]]
    mancalas: tuple[int, int]
    to_move: int
    over: bool
    seed: int
    moves_played: int
    quiet_moves: int = 0  # moves in a row that banked no coin (the Ethiopian stall rule)

    @property
    def board(self) -> Board:
        return (*self.tiles[0], self.mancalas[0], *self.tiles[1], self.mancalas[1])


def state_from_board(old: State, board: Board, to_move: int, over: bool, stalled: bool = False) -> State:
    """The state after one move: ``old`` with a new ring, turn and move count. A game the stall
    rule ended keeps its count (the sweep banks coins, but the move itself banked none), so
    the board can say why it ended."""
    banked = board[STORE[0]] + board[STORE[1]] != old.mancalas[0] + old.mancalas[1] and not stalled
    return State(
        variant=old.variant,
        tiles=(tuple(board[0:6]), tuple(board[7:13])),
        mancalas=(board[6], board[13]),
        to_move=to_move,
        over=over,
        seed=old.seed,
        moves_played=old.moves_played + 1,
        quiet_moves=0 if banked else old.quiet_moves + 1,
    )


def hole(seat: int, tile: int) -> int:
    """Ring index of ``tiles[seat][tile]``."""
    return seat * 7 + tile


def owner(h: int) -> int:
    return h // 7


def side(board: Board | list[int], seat: int) -> int:
    """Coins on the six tiles of ``seat``."""
    return sum(board[seat * 7 : seat * 7 + TILES])


def movable(board: Board | list[int], seat: int, variant: str) -> list[int]:
    """Tile indexes (0..5) ``seat`` may start from."""
    least = 2 if variant == ETHIOPIAN else 1  # Ethiopian: never from a single coin
    return [t for t in range(TILES) if board[seat * 7 + t] >= least]


class Sowing(NamedTuple):
    """What happened during one sowing, for the move log (a tuple: the AI makes many)."""

    coins: int
    extra_turn: bool = False
    captured: int = 0  # coins moved to the mover's mancala by an Egyptian/Kalah capture
    relays: int = 0  # Nigerian: how many times the sowing carried on from the last tile
    banked: tuple[int, int] = (0, 0)  # Nigerian: coins each seat banked by the 4-coin rule
    repeated: bool = False  # Nigerian: the relay guard ended the turn


class Turn(NamedTuple):
    board: Board
    to_move: int
    over: bool
    sowing: Sowing
    passed: int | None = None  # Ethiopian: the seat whose turn passed for want of a move
    stalled: bool = False  # Ethiopian: the game ended after STALL_LIMIT moves that banked nothing
    swept: tuple[int, int] = (0, 0)  # the coins each seat banked from its own tiles as the game ended


def sow(board: list[int], seat: int, tile: int, step: int, variant: str) -> Sowing:
    """Sow from ``tiles[seat][tile]`` in place on ``board``."""
    if variant == NIGERIAN:
        return _sow_nigerian(board, hole(seat, tile))
    return _sow_with_capture(board, seat, hole(seat, tile), step, variant)


def _sow_with_capture(board: list[int], seat: int, start: int, step: int, variant: str) -> Sowing:
    """Egyptian, Ethiopian and Kalah: skip the opponent's mancala, capture, move again."""
    coins, board[start] = board[start], 0
    skip, home = STORE[1 - seat], STORE[seat]
    h, left = start, coins
    while left:
        h = (h + step) % HOLES
        if h != skip:  # the lap drops into the starting tile too
            board[h] += 1
            left -= 1
    if h == home:
        return Sowing(coins, extra_turn=True)
    if owner(h) == seat and board[h] == 1:
        across = 12 - h
        # Kalah only captures a non-empty opposite tile; Egyptian takes the lone coin too.
        if variant != KALAH or board[across]:
            taken = board[h] + board[across]
            board[home] += taken
            board[h] = board[across] = 0
            return Sowing(coins, captured=taken)
    return Sowing(coins)


def _sow_nigerian(board: list[int], start: int) -> Sowing:
    """Nigerian: drop into both mancalas, bank tiles reaching 4, relay from the last tile."""
    banked = [0, 0]
    seen: set[tuple[Board, int]] = set()
    h, coins, relays = start, board[start], -1
    while True:
        if (key := (tuple(board), h)) in seen:
            return Sowing(coins, relays=relays, banked=(banked[0], banked[1]), repeated=True)
        seen.add(key)
        relays += 1
        left, board[h] = board[h], 0
        while left:
            h = (h + 1) % HOLES
            board[h] += 1
            left -= 1
            if board[h] == NIGERIAN_BANK and h not in STORE:
                # Whoever dropped the fourth coin, the tile's owner banks it at once.
                board[STORE[owner(h)]] += NIGERIAN_BANK
                banked[owner(h)] += NIGERIAN_BANK
                board[h] = 0
        # The turn ends in a mancala, in an empty tile (now 1) or on a banked tile (now 0).
        if h in STORE or board[h] <= 1:
            return Sowing(coins, relays=relays, banked=(banked[0], banked[1]))


def play(board: Board, seat: int, tile: int, step: int, variant: str, quiet: int = 0) -> Turn:
    """One whole move: sow, then apply the variant's end and pass rules. ``quiet`` is how
    many moves in a row before this one banked no coin."""
    turn = _play(board, seat, tile, step, variant)
    stalled = (
        variant == ETHIOPIAN
        and not turn.over
        and quiet + 1 >= STALL_LIMIT
        and turn.board[STORE[0]] + turn.board[STORE[1]] == board[STORE[0]] + board[STORE[1]]
    )
    if not stalled:
        return turn
    return turn._replace(board=sweep(list(turn.board)), over=True, stalled=True, swept=sides(turn.board))


def _play(board: Board, seat: int, tile: int, step: int, variant: str) -> Turn:
    ring = list(board)
    sowing = sow(ring, seat, tile, step, variant)
    if variant == NIGERIAN:
        # The game ends when the player to move has no coins on his tiles; leftovers stay.
        return Turn(tuple(ring), 1 - seat, side(ring, 1 - seat) == 0, sowing)
    if not any(ring[0:6]) or not any(ring[7:13]):
        return _ended(ring, seat, sowing)
    nxt = seat if sowing.extra_turn else 1 - seat
    if variant == ETHIOPIAN and not movable(ring, nxt, variant):
        if not movable(ring, 1 - nxt, variant):
            return _ended(ring, nxt, sowing, passed=nxt)
        return Turn(tuple(ring), 1 - nxt, False, sowing, passed=nxt)
    return Turn(tuple(ring), nxt, False, sowing)


def _ended(ring: list[int], to_move: int, sowing: Sowing, passed: int | None = None) -> Turn:
    """The last turn of an Egyptian, Ethiopian or Kalah game: the sweep, and what it banked
    (counted only here, at the end: the AI's search plays every other turn)."""
    left = sides(ring)
    return Turn(sweep(ring), to_move, True, sowing, passed=passed, swept=left)


def sides(ring: Board | list[int]) -> tuple[int, int]:
    """The coins on each seat's tiles."""
    return side(ring, 0), side(ring, 1)


def sweep(ring: list[int]) -> Board:
    """End of an Egyptian, Ethiopian or Kalah game: each player banks his own tiles."""
    for seat in (0, 1):
        ring[STORE[seat]] += side(ring, seat)
        for t in range(TILES):
            ring[hole(seat, t)] = 0
    return tuple(ring)
