"""Jeexa AI strength and speed in 4-player games.

    python bench/jeexa_ai.py [games]

Plays the strong level against three random players, the strong level against three easy
players, and the easy level against three random players. The measured player's seat
rotates with the game number (game n: seat n % 4), so it starts every hand in turn. It
"beats" the table when it is among the winners (a shared first place counts). Also prints
the mean and the longest time one AI move takes at each level. Prints numbers only.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import get_game
from games.engine.registry import GAME_MODULES

GAME_MODULES.setdefault("jeexa", "games.rules.jeexa")
GAME = get_game("jeexa")
PLAYERS = 4
DEFAULT_GAMES = 100
Player = Callable[[object, int, int], str]  # (state, seat, game seed) -> move


@dataclass
class Tally:
    games: int = 0
    beats: int = 0
    shared: int = 0  # of the beats, how many were a shared first place
    margin: int = 0  # sum of (measured score - best other score)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def line(self, measured: str, field_name: str) -> str:
        rate = self.beats / self.games
        return (
            f"  {measured:>6} vs 3 {field_name:<6} {self.games:4d} games: beats the table {rate:6.1%}"
            f" ({self.shared} shared), mean margin {self.margin / self.games:+.1f} points"
        )


def ai_player(level: int) -> Player:
    return lambda state, seat, seed: GAME.ai_move(state, seat, level, seed)


def random_player(state, seat: int, seed: int) -> str:
    moves = GAME.legal_moves(state, seat)
    return random.Random(f"{seed}:{state.moves_played}").choice(moves)


KINDS: dict[str, Player] = {"strong": ai_player(2), "easy": ai_player(1), "random": random_player}


def play_game(names: list[str], seed: int, tally: Tally) -> tuple[int, ...]:
    """One game with ``names[seat]`` playing each seat; the winners."""
    state = GAME.initial_state(PLAYERS, {}, seed)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        name = names[seat]
        started = time.perf_counter()
        move = KINDS[name](state, seat, seed)
        tally.seconds.setdefault(name, []).append(time.perf_counter() - started)
        state = GAME.apply(state, seat, move)
    outcome = GAME.outcome(state)
    return outcome.winners, outcome.scores


def match(measured: str, others: str, games: int, speed: dict[str, list[float]]) -> Tally:
    tally = Tally()
    for n in range(games):
        seat = n % PLAYERS
        names = [others] * PLAYERS
        names[seat] = measured
        winners, scores = play_game(names, seed=n, tally=tally)
        tally.games += 1
        if seat in winners:
            tally.beats += 1
            tally.shared += len(winners) > 1
        tally.margin += scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
    for name in (measured, others):
        if name != "random":
            speed.setdefault(name, []).extend(tally.seconds.get(name, []))
    return tally


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else DEFAULT_GAMES
    speed: dict[str, list[float]] = {}
    print(f"Jeexa, {PLAYERS} players, {games} games per line:", flush=True)
    started = time.perf_counter()
    for measured, others in (("strong", "random"), ("strong", "easy"), ("easy", "random")):
        print(match(measured, others, games, speed).line(measured, others), flush=True)
    for name, times in speed.items():
        mean = 1000 * sum(times) / len(times)
        print(f"  {name:>6}: {len(times)} moves, mean {mean:.1f} ms, max {1000 * max(times):.1f} ms per move")
    print(f"  ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main(sys.argv[1:])
