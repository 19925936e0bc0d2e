"""Mecca AI strength and speed.

    python bench/mecca_ai.py [games] [matchup ...]      matchups: strong-random strong-easy easy-random

Strength, in 4-player games: for each matchup the first-named player sits in one seat
against three copies of the second; game ``n`` gives the measured player seat ``n % 4``
and seed ``n``. The measured player *beats* its opponents when its seat is among the
winners (a shared win counts). Prints the win rate with a 95% interval and the mean and
largest time per move of each player.

Speed, for 2 to 6 players: a few games of each AI level against random players, with
the mean and largest time per move of that level. Prints numbers only; nothing asserts.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.rules.mecca import GAME
from games.rules.mecca.rules import State

PLAYERS_PER_GAME = 4
DEFAULT_GAMES = 200
SPEED_GAMES = 4  # games per player count and level in the speed section
MATCHUPS = {"strong-random": ("strong", "random"), "strong-easy": ("strong", "easy"), "easy-random": ("easy", "random")}
DEFAULT_MATCHUPS = ("strong-random", "strong-easy")
Player = Callable[[State, int, int], str]  # (state, seat, game seed) -> move


def ai_player(level: int) -> Player:
    return lambda state, seat, seed: GAME.ai_move(state, seat, level, seed)


def random_player(state: State, seat: int, seed: int) -> str:
    moves = GAME.legal_moves(state, seat)
    return random.Random(f"{seed}:{state.moves_played}").choice(moves)


PLAYERS: dict[str, Player] = {"strong": ai_player(2), "easy": ai_player(1), "random": random_player}


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    shared: int = 0  # wins shared with another seat
    times: dict[str, list[float]] = field(default_factory=dict)

    def time(self, name: str, seconds: float) -> None:
        self.times.setdefault(name, []).append(seconds)

    def lines(self, first: str, second: str) -> list[str]:
        rate = self.wins / self.games
        low, high = wilson(self.wins, self.games)
        lines = [
            f"  {first} vs 3 × {second}: {first} among the winners in {self.wins}/{self.games} games "
            f"= {rate:.1%} (95% interval {low:.1%}–{high:.1%}; {self.shared} of those wins shared)"
        ]
        for name in (first, second):
            if self.times.get(name):
                times = self.times[name]
                lines.append(
                    f"    {name:>6}: {len(times)} moves, mean {1000 * sum(times) / len(times):.1f} ms, "
                    f"max {1000 * max(times):.1f} ms per move"
                )
        return lines


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate."""
    if not games:
        return 0.0, 0.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def play_game(names: list[str], seed: int, tally: Tally) -> tuple[int, ...]:
    """One game with ``names[seat]`` in each seat; the winning seats."""
    state = GAME.initial_state(len(names), {}, seed)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        started = time.perf_counter()
        move = PLAYERS[names[seat]](state, seat, seed)
        tally.time(names[seat], time.perf_counter() - started)
        state = GAME.apply(state, seat, move)
    return GAME.outcome(state).winners


def match(first: str, second: str, games: int) -> Tally:
    tally = Tally()
    for n in range(games):
        seat = n % PLAYERS_PER_GAME
        names = [second] * PLAYERS_PER_GAME
        names[seat] = first
        winners = play_game(names, seed=n, tally=tally)
        tally.games += 1
        if seat in winners:
            tally.wins += 1
            tally.shared += len(winners) > 1
    return tally


def speed(level: str) -> list[str]:
    """Mean and largest time per move of ``level`` against random players, 2 to 6 players."""
    lines = []
    for players in range(2, 7):
        tally = Tally()
        for n in range(SPEED_GAMES):
            names = ["random"] * players
            names[n % players] = level
            play_game(names, seed=10_000 + n, tally=tally)
        times = tally.times[level]
        lines.append(
            f"  {level:>6}, {players} players: {len(times)} moves, mean {1000 * sum(times) / len(times):.1f} ms, "
            f"max {1000 * max(times):.1f} ms per move"
        )
    return lines


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else DEFAULT_GAMES
    chosen = argv[1:] or list(DEFAULT_MATCHUPS)
    print(f"Mecca, {PLAYERS_PER_GAME}-player games; 'beats' = the measured seat is among the winners.", flush=True)
    for key in chosen:
        first, second = MATCHUPS[key]
        started = time.perf_counter()
        tally = match(first, second, games)
        for line in tally.lines(first, second):
            print(line, flush=True)
        print(f"    ({time.perf_counter() - started:.0f} s)", flush=True)
    print("Time per move against random players, 2 to 6 players:", flush=True)
    for level in ("easy", "strong"):
        for line in speed(level):
            print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
