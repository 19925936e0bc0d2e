"""Mesopotamia AI strength and speed in 3-player games.

    python bench/mesopotamia_ai.py [games] [matchup ...]

Matchups (default: all three): ``strong-random`` (strong against two random players),
``strong-easy`` (strong against two easy players), ``easy-random``. The measured
player takes seat ``n % 3`` in game ``n``; it "beats" the others when it is the only
winner. Prints the win rate, how the games ended and the mean and max time per move of
each AI level. Prints numbers only; nothing here asserts.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import get_game
from games.engine.registry import GAME_MODULES

GAME_MODULES.setdefault("mesopotamia", "games.rules.mesopotamia")
GAME = get_game("mesopotamia")
DEFAULT_GAMES = 100
PLAYERS = 3
Player = Callable[[object, int, int], str]  # (state, seat, game seed) -> move


def ai_player(level: int) -> Player:
    return lambda state, seat, seed: GAME.ai_move(state, seat, level, seed)


def random_player(state, seat: int, seed: int) -> str:
    moves = GAME.legal_moves(state, seat)
    return random.Random(f"{seed}:{state.ply}").choice(moves)


KINDS: dict[str, Player] = {"strong": ai_player(2), "easy": ai_player(1), "random": random_player}


@dataclass
class Tally:
    wins: int = 0
    games: int = 0
    rounds: int = 0
    endings: Counter = field(default_factory=Counter)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def line(self, measured: str, others: str) -> str:
        timing = ", ".join(
            f"{name} {1000 * sum(times) / len(times):.1f} ms mean / {1000 * max(times):.0f} ms max"
            for name, times in self.seconds.items()
            if name != "random"
        )
        endings = ", ".join(f"{reason} {n}" for reason, n in sorted(self.endings.items()))
        return (
            f"  {measured} vs 2 {others}: {self.wins}/{self.games} won ({self.wins / self.games:.0%}); "
            f"{self.rounds / self.games:.1f} rounds a game; ended by {endings}; {timing}"
        )


def play_game(kinds: tuple[str, ...], seed: int, tally: Tally) -> tuple[int, ...]:
    state = GAME.initial_state(PLAYERS, {}, seed)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        started = time.perf_counter()
        move = KINDS[kinds[seat]](state, seat, seed)
        tally.seconds.setdefault(kinds[seat], []).append(time.perf_counter() - started)
        state = GAME.apply(state, seat, move)
    tally.endings[state.end_reason] += 1
    tally.rounds += state.turn_number // PLAYERS + 1
    return GAME.outcome(state).winners


def match(measured: str, others: str, games: int) -> Tally:
    tally = Tally()
    for n in range(games):
        seat = n % PLAYERS
        kinds = tuple(measured if s == seat else others for s in range(PLAYERS))
        winners = play_game(kinds, seed=n, tally=tally)
        tally.games += 1
        tally.wins += winners == (seat,)
    return tally


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else DEFAULT_GAMES
    matchups = argv[1:] or ["strong-random", "strong-easy", "easy-random"]
    for matchup in matchups:
        measured, others = matchup.split("-")
        started = time.perf_counter()
        tally = match(measured, others, games)
        print(tally.line(measured, others), f"[{time.perf_counter() - started:.0f} s]", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
